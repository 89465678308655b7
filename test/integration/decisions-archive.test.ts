// The archive routine end to end through the CLI as operators run it: decisions made over HTTP are exported to
// signed gzip'd NDJSON, `decisions verify` accepts the file, and a single changed byte (in the data or in the
// manifest) or a foreign key fails it. `decisions show` prints the same record as the API.
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyExport } from '../../src/decisions/archive.js';
import { DecisionReader } from '../../src/decisions/reader.js';
import { runCli } from '../helpers/cli.js';
import { cleanCarrier, startTestApp, type TestApp } from '../helpers/harness.js';

let t: TestApp;
let key: string;
let dir: string;
const ids: string[] = [];
const { privateKey } = generateKeyPairSync('ed25519');
const SIGNING_KEY = privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64');
const { privateKey: otherKey } = generateKeyPairSync('ed25519');

const cli = (...args: string[]) => {
  process.env.DECISION_SIGNING_KEY = SIGNING_KEY;
  return runCli(t.config.REDIS_PREFIX, ...args);
};

beforeAll(async () => {
  t = await startTestApp();
  await t.publishRules();
  await t.writeSnapshot([cleanCarrier('100001'), cleanCarrier('100002', { safety_rating: 'U' })]);
  ({ key } = await t.createKey());
  await t.app.parts.state.poll();
  for (const mc of ['100001', '100002', '999999', '100001']) {
    const verdict = await (await t.post('/v1/eligibility', { mc_number: mc, reference: `ref-${mc}` }, { 'x-api-key': key })).json();
    ids.push(verdict.decision_id);
  }
  dir = await mkdtemp(join(tmpdir(), 'decisions-export-'));
});

afterAll(async () => {
  delete process.env.DECISION_SIGNING_KEY;
  await rm(dir, { recursive: true, force: true });
  await t.stop();
});

describe('decisions export / verify / show', () => {
  let dataFile = '';
  let manifestFile = '';

  it('exports every record of the range into signed NDJSON.gz, one self-contained record per line', async () => {
    const from = new Date(Date.now() - 3_600_000).toISOString();
    const to = new Date(Date.now() + 60_000).toISOString();
    const result = await cli('decisions', 'export', '--from', from, '--to', to, '--out', dir);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const summary = JSON.parse(result.stdout);
    expect(summary.records).toBe(ids.length);
    const files = (await readdir(dir)).sort();
    dataFile = join(dir, files.find((name) => name.endsWith('.ndjson.gz')) ?? '');
    manifestFile = join(dir, files.find((name) => name.endsWith('.manifest.json')) ?? '');
    const lines = gunzipSync(await readFile(dataFile)).toString('utf8').trim().split('\n').map((line) => JSON.parse(line));
    expect(lines.map((line) => line.decision_id).sort()).toEqual([...ids].sort());
    const api = await (await t.get(`/v1/decisions/${ids[1]}`, { 'x-api-key': key })).json();
    // A line is the API's record but for the snapshot manifest, which the signed file manifest holds once.
    const { snapshot, ...rest } = api;
    expect(lines.find((line) => line.decision_id === ids[1])).toEqual(rest);
    const manifest = JSON.parse(await readFile(manifestFile, 'utf8'));
    expect(manifest.snapshots[snapshot.version]).toEqual(snapshot);
    expect(manifest.rulesets[String(api.ruleset.version)]).toMatchObject({ version: api.ruleset.version, rules: expect.any(Object) });
    expect(api.verdict.reasons).toEqual(['unsatisfactory_safety_rating']);
  }, 30_000);

  it('verifies the untouched file (CLI), by data file or by manifest', async () => {
    const result = await cli('decisions', 'verify', dataFile);
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toMatchObject({ ok: true, records: ids.length });
    expect(await verifyExport(manifestFile, createPublicKey(privateKey))).toMatchObject({ ok: true, records: ids.length });
  }, 30_000);

  it('fails verification after a one-byte change to the data (CLI exits non-zero)', async () => {
    const original = await readFile(dataFile);
    const tampered = Buffer.from(original);
    const at = Math.floor(tampered.length / 2);
    tampered[at] = (tampered[at] ?? 0) ^ 0x01;
    await writeFile(dataFile, tampered);
    const data = await cli('decisions', 'verify', dataFile);
    await writeFile(dataFile, original);
    expect(data.code).not.toBe(0);
    expect(data.stderr).toMatch(/verification FAILED.*SHA-256/);
  }, 30_000);

  it('fails verification after a one-byte change to the manifest, or under another trusted key', async () => {
    const trusted = createPublicKey(privateKey);
    const manifest = await readFile(manifestFile, 'utf8');
    await writeFile(manifestFile, manifest.replace(/"records": (\d+)/, (_, n: string) => `"records": ${Number(n) - 1}`));
    const signed = await verifyExport(manifestFile, trusted);
    await writeFile(manifestFile, manifest);
    expect(signed.ok).toBe(false);
    expect(signed.problems.join()).toMatch(/signature does not verify/);
    const other = await verifyExport(dataFile, createPublicKey(otherKey));
    expect(other.ok).toBe(false);
    expect(other.problems.join()).toMatch(/different key/);
    expect((await verifyExport(dataFile, trusted)).ok).toBe(true);
  });

  it('decisions show prints the record; an unknown id reads as null', async () => {
    const shown = await cli('decisions', 'show', ids[0] ?? '');
    expect(JSON.parse(shown.stdout)).toMatchObject({ decision_id: ids[0], reference: 'ref-100001', kind: 'check' });
    expect(await new DecisionReader(t.redis, t.keys).read('00000000-0000-7000-8000-000000000000')).toBeNull();
  }, 30_000);

  it('export refuses to run without a signing key', async () => {
    delete process.env.DECISION_SIGNING_KEY;
    const result = await runCli(t.config.REDIS_PREFIX, 'decisions', 'export', '--from', '2026-01-01', '--to', '2026-01-02', '--out', dir);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/DECISION_SIGNING_KEY is not set/);
  }, 30_000);
});
