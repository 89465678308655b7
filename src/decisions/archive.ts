// Long-term archive of decision records: export a time range to gzip'd NDJSON files (one per UTC hour), each
// with a manifest naming its SHA-256, size and record count, signed with Ed25519; and verify such a file.
// Each line is the GET /v1/decisions/{id} body (verdict with evidence, who asked, rule set version and hash)
// except the snapshot manifest, which, like the full body of every rule set used, is written once into the
// file's signed manifest (`snapshots`, `rulesets`) instead of into every line: an archive needs nothing from
// Redis to be read in court, and a line is half the size.
//
// Reads time buckets directly (HSCAN of each one-second hash), never SCAN over the keyspace.
import { createHash, createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { createGunzip, createGzip, gzipSync } from 'node:zlib';
import { z } from 'zod';
import type { RedisClient } from '../redis/connection.js';
import type { RedisKeys } from '../store/keys.js';
import { canonicalJson, DecisionReader } from './reader.js';
import { BUCKET_MS } from './recorder.js';
import { decodeRecord } from './record-codec.js';

export const EXPORT_FORMAT = 'carrier-eligibility.decisions-export/1';
const HOUR_MS = 3_600_000;
const WRITE_CHARS = 256 * 1024;

/** The Ed25519 private key from DECISION_SIGNING_KEY: PEM, or base64 of the PKCS#8 DER bytes. */
export function parseSigningKey(text: string): KeyObject {
  const trimmed = text.trim();
  const key = trimmed.startsWith('-----')
    ? createPrivateKey(trimmed)
    : createPrivateKey({ key: Buffer.from(trimmed, 'base64'), format: 'der', type: 'pkcs8' });
  if (key.asymmetricKeyType !== 'ed25519') throw new Error(`signing key is ${key.asymmetricKeyType ?? 'not asymmetric'}, not ed25519`);
  return key;
}

/** A trusted public key: PEM or base64 DER, SPKI or a PKCS#8 private key (whose public half is used). */
export function parsePublicKey(text: string): KeyObject {
  const trimmed = text.trim();
  if (trimmed.includes('PRIVATE KEY')) return createPublicKey(parseSigningKey(trimmed));
  let key: KeyObject;
  if (trimmed.startsWith('-----')) key = createPublicKey(trimmed);
  else {
    try {
      key = createPublicKey({ key: Buffer.from(trimmed, 'base64'), format: 'der', type: 'spki' });
    } catch {
      // DECISION_SIGNING_KEY itself (base64 PKCS#8): its public half is the trusted key.
      key = createPublicKey(parseSigningKey(trimmed));
    }
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new Error('public key is not ed25519');
  return key;
}

export function publicKeyBase64(key: KeyObject): string {
  const publicKey = key.type === 'private' ? createPublicKey(key) : key;
  return publicKey.export({ format: 'der', type: 'spki' }).toString('base64');
}

const manifestSchema = z.object({
  format: z.literal(EXPORT_FORMAT),
  file: z.string(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  bytes: z.number().int().nonnegative(),
  records: z.number().int().nonnegative(),
  from: z.string(),
  to: z.string(),
  created_at: z.string(),
  /** Every snapshot manifest and rule set (full body) the file's records refer to, by version. */
  snapshots: z.record(z.string(), z.unknown()),
  rulesets: z.record(z.string(), z.unknown()),
  signature: z.object({ alg: z.literal('Ed25519'), public_key: z.string(), value: z.string() }),
});

export type ExportManifest = z.infer<typeof manifestSchema>;

export const manifestPath = (dataFile: string) => dataFile.replace(/\.ndjson\.gz$/, '') + '.manifest.json';

function signedBytes(manifest: Omit<ExportManifest, 'signature'>): Buffer {
  return Buffer.from(canonicalJson(manifest));
}

async function sha256File(path: string): Promise<{ sha256: string; bytes: number }> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of createReadStream(path)) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  return { sha256: hash.digest('hex'), bytes };
}

export interface ExportResult {
  files: Array<{ file: string; manifest: string; records: number; sha256: string }>;
  records: number;
  public_key: string;
}

function hourName(hourMs: number): string {
  return new Date(hourMs).toISOString().slice(0, 13).replace(/[-:]/g, '');
}

/**
 * Exports records whose decision time is in [from, to) into `outDir`, one file per UTC hour that has records.
 * Streams: one one-second bucket in memory at a time. Lines are in decision-id (time) order within a second.
 */
export async function exportDecisions(
  redis: RedisClient, keys: RedisKeys, options: { fromMs: number; toMs: number; outDir: string; signingKey: KeyObject },
): Promise<ExportResult> {
  await mkdir(options.outDir, { recursive: true });
  const reader = new DecisionReader(redis, keys, true);
  const result: ExportResult = { files: [], records: 0, public_key: publicKeyBase64(options.signingKey) };
  for (let hour = Math.floor(options.fromMs / HOUR_MS) * HOUR_MS; hour < options.toMs; hour += HOUR_MS) {
    const from = Math.max(hour, options.fromMs);
    const to = Math.min(hour + HOUR_MS, options.toMs);
    const name = `decisions-${hourName(hour)}${from !== hour || to !== hour + HOUR_MS ? `-${from}-${to}` : ''}.ndjson.gz`;
    const path = join(options.outDir, name);
    const partial = `${path}.partial`;
    const gzip = createGzip();
    const out = createWriteStream(partial);
    gzip.pipe(out);
    let records = 0;
    let pending = '';
    const snapshots: Record<string, unknown> = {};
    const rulesets: Record<string, unknown> = {};
    for (let second = Math.floor(from / BUCKET_MS); second * BUCKET_MS < to; second += 1) {
      const bucket = keys.decisionBucket(second);
      const entries: Array<[string, string]> = [];
      let cursor = '0';
      do {
        const [next, flat] = await redis.hscan(bucket, cursor, 'COUNT', 1000);
        cursor = next;
        for (let index = 0; index + 1 < flat.length; index += 2) entries.push([flat[index] as string, flat[index + 1] as string]);
      } while (cursor !== '0');
      entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      for (const [id, raw] of entries) {
        const stored = decodeRecord(id, raw);
        const ms = Date.parse(stored.verdict.evaluated_at);
        if (ms < from || ms >= to) continue;
        const { snapshot, ...line } = await reader.view(stored);
        if (snapshot) snapshots[snapshot.version] = snapshot;
        if (line.ruleset) rulesets[String(line.ruleset.version)] = reader.loadedRuleset(line.ruleset.version);
        pending += `${JSON.stringify(line)}\n`;
        records += 1;
        // zlib costs per write call: hand it ~256 KB at a time, not one line at a time.
        if (pending.length >= WRITE_CHARS) {
          const accepted = gzip.write(pending);
          pending = '';
          if (!accepted) await once(gzip, 'drain');
        }
      }
    }
    if (pending !== '') gzip.write(pending);
    pending = '';
    gzip.end();
    await once(out, 'close');
    if (records === 0) {
      await unlink(partial);
      continue;
    }
    await rename(partial, path);
    const { sha256, bytes } = await sha256File(path);
    const unsigned = {
      format: EXPORT_FORMAT, file: name, sha256, bytes, records,
      from: new Date(from).toISOString(), to: new Date(to).toISOString(), created_at: new Date().toISOString(), snapshots, rulesets,
    } as const;
    const manifest: ExportManifest = {
      ...unsigned,
      signature: { alg: 'Ed25519', public_key: result.public_key, value: sign(null, signedBytes(unsigned), options.signingKey).toString('base64') },
    };
    const manifestFile = manifestPath(path);
    await writeFile(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);
    result.files.push({ file: path, manifest: manifestFile, records, sha256 });
    result.records += records;
  }
  return result;
}

/**
 * Exports other NDJSON lines of [from, to) alongside the decisions, the same way: one `<prefix>-<hour>.ndjson.gz`
 * per UTC hour that has lines, each with a manifest signed like a decisions file's (no snapshots or rule sets), so
 * `decisions verify` checks it unchanged. `linesOf(from, to)` gives the lines of one hour, in order.
 */
export async function exportLines(
  prefix: string, linesOf: (fromMs: number, toMs: number) => Promise<string[]>,
  options: { fromMs: number; toMs: number; outDir: string; signingKey: KeyObject },
): Promise<ExportResult> {
  await mkdir(options.outDir, { recursive: true });
  const result: ExportResult = { files: [], records: 0, public_key: publicKeyBase64(options.signingKey) };
  for (let hour = Math.floor(options.fromMs / HOUR_MS) * HOUR_MS; hour < options.toMs; hour += HOUR_MS) {
    const from = Math.max(hour, options.fromMs);
    const to = Math.min(hour + HOUR_MS, options.toMs);
    const lines = await linesOf(from, to);
    if (lines.length === 0) continue;
    const name = `${prefix}-${hourName(hour)}${from !== hour || to !== hour + HOUR_MS ? `-${from}-${to}` : ''}.ndjson.gz`;
    const path = join(options.outDir, name);
    await writeFile(`${path}.partial`, gzipSync(lines.map((line) => `${line}\n`).join('')));
    await rename(`${path}.partial`, path);
    const { sha256, bytes } = await sha256File(path);
    const unsigned = {
      format: EXPORT_FORMAT, file: name, sha256, bytes, records: lines.length,
      from: new Date(from).toISOString(), to: new Date(to).toISOString(), created_at: new Date().toISOString(), snapshots: {}, rulesets: {},
    } as const;
    const manifest: ExportManifest = {
      ...unsigned,
      signature: { alg: 'Ed25519', public_key: result.public_key, value: sign(null, signedBytes(unsigned), options.signingKey).toString('base64') },
    };
    const manifestFile = manifestPath(path);
    await writeFile(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);
    result.files.push({ file: path, manifest: manifestFile, records: lines.length, sha256 });
    result.records += lines.length;
  }
  return result;
}

export interface VerifyResult {
  ok: boolean;
  file: string;
  manifest: string;
  records: number | null;
  problems: string[];
}

/**
 * Checks one exported file against its manifest: the manifest's Ed25519 signature under the trusted key, then
 * the file's SHA-256, size and line count. `file` may name the data file or its manifest.
 */
export async function verifyExport(file: string, trusted: KeyObject): Promise<VerifyResult> {
  const manifestFile = file.endsWith('.manifest.json') ? file : manifestPath(file);
  const problems: string[] = [];
  const parsed = manifestSchema.safeParse(JSON.parse(await readFile(manifestFile, 'utf8')));
  if (!parsed.success) return { ok: false, file, manifest: manifestFile, records: null, problems: ['manifest is malformed'] };
  const manifest = parsed.data;
  const dataFile = join(dirname(manifestFile), basename(manifest.file));
  const { signature, ...unsigned } = manifest;
  if (signature.public_key !== publicKeyBase64(trusted)) problems.push('manifest is signed by a different key than the trusted one');
  else if (!verify(null, signedBytes(unsigned), trusted, Buffer.from(signature.value, 'base64'))) problems.push('manifest signature does not verify');
  const { sha256, bytes } = await sha256File(dataFile).catch(() => ({ sha256: '', bytes: -1 }));
  if (bytes < 0) problems.push(`data file ${dataFile} is missing`);
  else {
    if (sha256 !== manifest.sha256) problems.push(`SHA-256 of ${manifest.file} is ${sha256}, manifest says ${manifest.sha256}`);
    if (bytes !== manifest.bytes) problems.push(`size of ${manifest.file} is ${bytes}, manifest says ${manifest.bytes}`);
  }
  let records: number | null = null;
  if (problems.length === 0) {
    records = 0;
    const lines = createInterface({ input: createReadStream(dataFile).pipe(createGunzip()), crlfDelay: Infinity });
    for await (const line of lines) {
      if (line !== '') records += 1;
    }
    if (records !== manifest.records) problems.push(`${records} records in the file, manifest says ${manifest.records}`);
  }
  return { ok: problems.length === 0, file: dataFile, manifest: manifestFile, records, problems };
}
