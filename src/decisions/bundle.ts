// An audit bundle: one account's decision records for a period (Redis window and archive alike) in ONE signed
// file, for an examiner or a court: `decisions export --account A --from --to --bundle FILE`.
//
// The file is gzip'd NDJSON, every line an object with a `type`:
//   header     format, account, MC number (or null), period, created_at
//   record     a GET /v1/decisions/{id} body without `snapshot` (in decision-id order, each id once)
//   snapshot   each snapshot manifest the records name, once
//   ruleset    each full rule set body the records name, once (its SHA-256 is the records' ruleset.sha256)
//   override_log  the account's override state changes in the period ({ entry }: src/overrides' log line)
//   …          other sections may be added by type (readers skip types they do not know)
//   signature  last: the number of lines before it, their SHA-256 (of the uncompressed bytes) and an Ed25519
//              signature over the canonical JSON of that and the header fields
// So one changed, added, removed or reordered byte anywhere breaks the SHA-256, and the signature ties the
// digest to the signing key. verifyBundle() checks it under the trusted key only.
import { createHash, sign, verify, type KeyObject } from 'node:crypto';
import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { open, rename } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { constants as zlib, createGunzip, createGzip, gunzipSync } from 'node:zlib';
import { z } from 'zod';
import type { SnapshotMeta } from '../core/carrier.js';
import type { RedisClient } from '../redis/connection.js';
import type { RedisKeys } from '../store/keys.js';
import { decodePublishedRuleSet } from '../store/stored-json.js';
import { publicKeyBase64 } from './archive.js';
import { FIND_MAX_LIMIT, type DecisionLookup } from './lookup.js';
import { canonicalJson } from './reader.js';

export const BUNDLE_FORMAT = 'carrier-eligibility.decision-bundle/1';

export interface BundleHeader {
  account: string;
  mc: string | null;
  from: string;
  to: string;
}

const signatureLine = z.object({
  type: z.literal('signature'),
  format: z.literal(BUNDLE_FORMAT),
  account: z.string(),
  mc: z.string().nullable(),
  from: z.string(),
  to: z.string(),
  created_at: z.string(),
  lines: z.number().int().nonnegative(),
  records: z.number().int().nonnegative(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  signature: z.object({ alg: z.literal('Ed25519'), public_key: z.string(), value: z.string() }),
});

/** Writes a bundle line by line (streamed: one page of records in memory at a time), then signs it. */
export class BundleWriter {
  private readonly gzip = createGzip();
  private readonly out;
  private readonly hash = createHash('sha256');
  private readonly createdAt = new Date().toISOString();
  private lines = 0;
  private records = 0;

  constructor(private readonly path: string, private readonly header: BundleHeader) {
    this.out = createWriteStream(`${path}.partial`);
    this.gzip.pipe(this.out);
  }

  static async open(path: string, header: BundleHeader): Promise<BundleWriter> {
    const writer = new BundleWriter(path, header);
    await writer.add('header', { format: BUNDLE_FORMAT, ...header, created_at: writer.createdAt });
    return writer;
  }

  /** Appends one line of `type` (record, snapshot, ruleset, or a section another feature adds). */
  async add(type: string, body: Record<string, unknown>): Promise<void> {
    if ('type' in body) throw new Error('a bundle line body must not have its own `type` (nest it)');
    const line = `${JSON.stringify({ type, ...body })}\n`;
    this.hash.update(line);
    this.lines += 1;
    if (type === 'record') this.records += 1;
    if (!this.gzip.write(line)) await once(this.gzip, 'drain');
  }

  /** Signs what was written, closes the file and moves it into place. */
  async finish(signingKey: KeyObject): Promise<{ file: string; lines: number; records: number; sha256: string }> {
    const unsigned = {
      type: 'signature' as const, format: BUNDLE_FORMAT, ...this.header, created_at: this.createdAt,
      lines: this.lines, records: this.records, sha256: this.hash.digest('hex'),
    };
    const signature = { alg: 'Ed25519' as const, public_key: publicKeyBase64(signingKey), value: sign(null, Buffer.from(canonicalJson(unsigned)), signingKey).toString('base64') };
    this.gzip.end(`${JSON.stringify({ ...unsigned, signature })}\n`);
    await once(this.out, 'close');
    await rename(`${this.path}.partial`, this.path);
    return { file: this.path, lines: this.lines, records: this.records, sha256: unsigned.sha256 };
  }
}

/**
 * Writes the header, every record of the account in the period (window and archive, via the same search as
 * GET /v1/decisions), then each snapshot manifest and rule set they name. Returns the writer still open: a
 * caller may add sections of its own before finish() signs the file.
 */
export async function writeBundle(
  lookup: DecisionLookup, redis: RedisClient, keys: RedisKeys,
  options: { path: string; account: string; mc: string | null; fromMs: number; toMs: number },
): Promise<BundleWriter> {
  const writer = await BundleWriter.open(options.path, {
    account: options.account, mc: options.mc, from: new Date(options.fromMs).toISOString(), to: new Date(options.toMs).toISOString(),
  });
  const snapshots = new Map<string, SnapshotMeta>();
  const rulesets = new Set<number>();
  let cursor: string | null = null;
  do {
    const page = await lookup.find({ account: options.account, mc: options.mc, fromMs: options.fromMs, toMs: options.toMs, limit: FIND_MAX_LIMIT, cursor });
    for (const { snapshot, ...record } of page.items) {
      if (snapshot) snapshots.set(snapshot.version, snapshot);
      if (record.ruleset) rulesets.add(record.ruleset.version);
      await writer.add('record', { ...record });
    }
    cursor = page.next_cursor;
  } while (cursor !== null);
  for (const [version, manifest] of snapshots) await writer.add('snapshot', { version, manifest });
  for (const version of [...rulesets].sort((a, b) => a - b)) {
    // Rule sets are never deleted from Redis.
    const raw = await redis.get(keys.ruleset(version));
    await writer.add('ruleset', { version, ruleset: raw === null ? null : decodePublishedRuleSet(raw) });
  }
  return writer;
}

export interface BundleVerifyResult {
  ok: boolean;
  file: string;
  account: string | null;
  records: number | null;
  /** The first thing that differs. */
  problem: string | null;
}

/** True when the file is a bundle (a gzip file whose first line is a bundle header). */
export async function isBundle(path: string): Promise<boolean> {
  let handle;
  try {
    handle = await open(path, 'r');
    if (!(await handle.stat()).isFile()) return false;
    const head = Buffer.alloc(4096);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    // A partial gzip stream: inflate what is there without requiring its end.
    const text = gunzipSync(head.subarray(0, bytesRead), { finishFlush: zlib.Z_SYNC_FLUSH }).toString('utf8');
    const header = JSON.parse(text.slice(0, text.indexOf('\n'))) as { type?: unknown; format?: unknown };
    return header.type === 'header' && header.format === BUNDLE_FORMAT;
  } catch {
    return false;
  } finally {
    await handle?.close();
  }
}

/** Checks a bundle under the trusted key: the signature, then the SHA-256 and count of every line before it. */
export async function verifyBundle(path: string, trusted: KeyObject): Promise<BundleVerifyResult> {
  const result: BundleVerifyResult = { ok: false, file: path, account: null, records: null, problem: null };
  const hash = createHash('sha256');
  let lines = 0;
  let records = 0;
  let last: string | null = null;
  try {
    const input = createInterface({ input: createReadStream(path).pipe(createGunzip()), crlfDelay: Infinity });
    for await (const line of input) {
      if (last !== null) {
        hash.update(`${last}\n`);
        lines += 1;
        if (last.startsWith('{"type":"record"')) records += 1;
      }
      last = line;
    }
  } catch (error) {
    return { ...result, problem: `does not decompress: ${error instanceof Error ? error.message : String(error)}` };
  }
  let signed;
  try {
    signed = signatureLine.parse(JSON.parse(last ?? ''));
  } catch {
    return { ...result, problem: 'does not end with a signature line' };
  }
  const { signature, ...unsigned } = signed;
  result.account = signed.account;
  if (signature.public_key !== publicKeyBase64(trusted)) return { ...result, problem: 'is signed by a different key than the trusted one' };
  if (!verify(null, Buffer.from(canonicalJson(unsigned)), trusted, Buffer.from(signature.value, 'base64'))) return { ...result, problem: 'signature does not verify' };
  const digest = hash.digest('hex');
  if (digest !== signed.sha256) return { ...result, problem: `SHA-256 of its lines is ${digest}, the signature line says ${signed.sha256}` };
  if (lines !== signed.lines || records !== signed.records) return { ...result, problem: `holds ${lines} lines and ${records} records, the signature line says ${signed.lines} and ${signed.records}` };
  return { ...result, ok: true, records };
}
