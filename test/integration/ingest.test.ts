// Ingest into a real Redis (own random prefix per test), then judge the stored records with decide().
import { GuardRefusal } from '../../src/ingest/change-guards.js';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SnapshotMeta } from '../../src/core/carrier.js';
import { decide } from '../../src/core/decide.js';
import { REASON_CODES, REASONS } from '../../src/core/reasons.js';
import { DEFAULT_RULE_SET, SOURCE_NAMES } from '../../src/core/ruleset.js';
import { addDnu } from '../../src/ingest/dnu.js';
import { IngestError } from '../../src/ingest/errors.js';
import { runIngest } from '../../src/ingest/run.js';
import { NOT_IN_DEMO } from '../../src/ingest/sample-carriers.js';
import { DEMO_CARRIERS, sampleSourceAsOf, seedSample, writeSampleFiles } from '../../src/ingest/sample.js';
import { writeSyntheticFiles } from '../../src/ingest/synthetic.js';
import { decodeCarrier } from '../../src/store/carrier-codec.js';
import { carrierBucket, redisKeys, type RedisKeys } from '../../src/store/keys.js';
import { readSnapshotStatus } from '../../src/store/snapshot-status.js';
import { createRedis } from '../../src/redis/connection.js';
import { deleteByPrefix } from '../../src/redis/delete-by-prefix.js';
import { keysUnder as keysUnderPrefix } from '../helpers/keys-under.js';
import { testRedisTarget } from '../helpers/harness.js';

const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
// The suite's Redis (standalone, or the private Cluster of the `cluster` project).
const redis = createRedis(testRedisTarget(), 'background');
const prefixes: string[] = [];
let dir = '';

function freshKeys(): { prefix: string; keys: RedisKeys } {
  const prefix = `test:${Math.random().toString(36).slice(2, 10)}:`;
  prefixes.push(prefix);
  return { prefix, keys: redisKeys(prefix) };
}

async function keysUnder(prefix: string): Promise<string[]> {
  return keysUnderPrefix(redis, prefix);
}

async function verdict(keys: RedisKeys, mc: string) {
  const status = await readSnapshotStatus(redis, keys);
  const meta = status.meta as SnapshotMeta;
  const lookup = decodeCarrier(mc, await redis.hget(keys.carrierBucket(meta.version, carrierBucket(mc)), mc));
  return decide({
    lookup, ruleset: { version: 1, published_at: meta.created_at, rules: DEFAULT_RULE_SET }, snapshot: meta,
    backendAvailable: true, maxDataAgeSeconds: 172_800, nowMs: Date.now(),
  });
}

beforeAll(async () => { dir = await mkdtemp(join(tmpdir(), 'ce-ingest-it-')); });
afterEach(async () => {
  for (const prefix of prefixes.splice(0)) await deleteByPrefix(redis, prefix);
});
afterAll(async () => {
  redis.disconnect();
  await rm(dir, { recursive: true, force: true });
});

describe('sample ingest', () => {
  it('yields the documented verdict for every demo carrier, covering every reason a found carrier can get', async () => {
    const { keys } = freshKeys();
    const report = await seedSample(redis, keys, { quiet: true });
    expect(report.carriers).toBe(274);
    for (const carrier of DEMO_CARRIERS) {
      const decision = await verdict(keys, carrier.mc);
      expect({ mc: carrier.mc, tier: decision.tier, reasons: decision.reasons }).toEqual({ mc: carrier.mc, tier: carrier.tier, reasons: carrier.reasons });
    }
    const covered = new Set(DEMO_CARRIERS.flatMap((carrier) => carrier.reasons));
    const foundReasons = REASON_CODES.filter((code) => (REASONS[code].kind === 'hard_stop' || REASONS[code].kind === 'review') && !NOT_IN_DEMO.includes(code));
    expect(foundReasons.filter((code) => !covered.has(code))).toEqual([]);
    expect(DEMO_CARRIERS.some((c) => c.tier === 'preferred') && DEMO_CARRIERS.some((c) => c.tier === 'standard')).toBe(true);
    expect(await verdict(keys, '999999')).toMatchObject({ found: false, reasons: ['carrier_not_found'] });
  });

  it('records every source in the meta; data status reads it back; hits keep their evidence', async () => {
    const { keys } = freshKeys();
    const files = await writeSampleFiles(join(dir, 'partial'));
    await runIngest(redis, keys, { files: { census: files.census, authority: files.authority, ofacSdn: files.ofacSdn }, asOf: 'now', sourceAsOf: sampleSourceAsOf(Date.now()), useRedisDnu: false });
    const status = await readSnapshotStatus(redis, keys);
    expect(Object.keys(status.meta!.sources).sort()).toEqual([...SOURCE_NAMES].sort());
    expect(status.meta!.sources.sam).toEqual({ present: false, as_of: null, rows: 0 });
    expect(status.meta!.sources.census).toMatchObject({ present: true, rows: 275 });
    expect(status.being_written).toEqual([]);
    const record = decodeCarrier('200002', await redis.hget(keys.carrierBucket(status.current_version!, carrierBucket('200002')), '200002'));
    // Since issue 8 hits also carry the matcher's evidence (entity type, programs, agreed fields, explanation).
    expect(record.kind === 'found' && record.record.hits).toMatchObject([{
      list: 'ofac_sdn', entry_id: '990001', matched_name: 'NORTHWIND MARITIME LOGISTICS', carrier_name: 'Northwind Maritime Logistics, Inc.',
      score: 1, exact: true, note: 'program SAMPLE', entity_type: 'entity', programs: ['SAMPLE'],
    }]);
  });

  it('merges the live Redis DNU hash', async () => {
    const { keys } = freshKeys();
    await addDnu(redis, keys, '100002', { reason: 'fraud report', added_at: new Date().toISOString(), expires_at: null });
    await seedSample(redis, keys, { quiet: true, useRedisDnu: true });
    expect(await verdict(keys, '100002')).toMatchObject({ tier: 'blocked', reasons: ['do_not_use'] });
  });
});

describe('safe by construction', () => {
  it('a bad row aborts with one line naming file, row and field, and leaves the serving snapshot unchanged', async () => {
    const { prefix, keys } = freshKeys();
    const first = await seedSample(redis, keys, { quiet: true });
    const before = (await keysUnder(prefix)).sort();
    const files = await writeSampleFiles(join(dir, 'bad'));
    const lines = (await readFile(files.census, 'utf8')).split('\n');
    // One unreadable row is set aside (its carrier fails closed); three of ~270 pass the 0.5% limit and refuse.
    for (const at of [5, 6, 7]) lines[at] = lines[at]!.replace(/^\d{8} 0000/, '2025-99-99');
    await writeFile(files.census, lines.join('\n'));
    const failure = await runIngest(redis, keys, { files, asOf: 'now', sourceAsOf: sampleSourceAsOf(Date.now()) }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(IngestError);
    expect((failure as Error).message).toMatch(/census: 3 of \d+ rows could not be read \(limit 0\.5%\), the first .*census_az4n-8mr2\.csv, row 6, field MCS150_DATE: not a date: "2025-99-99"/);
    expect((failure as Error).message.split('\n')).toHaveLength(1);
    expect(await redis.get(keys.snapshotCurrent)).toBe(first.version);
    expect((await keysUnder(prefix)).sort()).toEqual(before);
  });

  it('the shrink guard refuses a >10% smaller snapshot unless forced', async () => {
    const { keys } = freshKeys();
    const first = await seedSample(redis, keys, { quiet: true });
    const files = await writeSampleFiles(join(dir, 'shrink'));
    const lines = (await readFile(files.census, 'utf8')).trimEnd().split('\n');
    await writeFile(files.census, `${lines.slice(0, 150).join('\n')}\n`);
    await writeFile(files.authority, `${(await readFile(files.authority, 'utf8')).split('\n').slice(0, 140).join('\n')}\n`);
    await expect(runIngest(redis, keys, { files, asOf: 'now', sourceAsOf: sampleSourceAsOf(Date.now()) })).rejects.toThrow(/authority: 1\d\d rows is \d+% below the serving snapshot's 274 .*--force/);
    expect(await redis.get(keys.snapshotCurrent)).toBe(first.version);
    // --force lifts the row guards only: half the carriers losing eligibility is a change guard of its own.
    const refusal = await runIngest(redis, keys, { files, asOf: 'now', sourceAsOf: sampleSourceAsOf(Date.now()), force: true }).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(GuardRefusal);
    expect((refusal as Error).message).toMatch(/eligible_drop: 2\d\d → 1\d\d, limit fall ≤ 5\.0% of carriers/);
    const accept = (refusal as GuardRefusal).rows.filter((row) => row.verdict === 'refused').map((row) => row.guard);
    expect(await redis.get(keys.snapshotCurrent)).toBe(first.version);
    const forced = await runIngest(redis, keys, { files, asOf: 'now', sourceAsOf: sampleSourceAsOf(Date.now()), force: true, accept });
    expect(forced.guards.filter((row) => row.verdict === 'accepted').map((row) => row.guard)).toEqual(accept);
    expect(await redis.get(keys.snapshotCurrent)).toBe(forced.version);
    expect(forced.previous).toBe(first.version);
  });

  it('retires the replaced version and removes it once its grace period is over', async () => {
    const { keys } = freshKeys();
    const first = await seedSample(redis, keys, { quiet: true });
    const files = await writeSampleFiles(join(dir, 'retire'));
    await runIngest(redis, keys, { files, asOf: 'now', sourceAsOf: sampleSourceAsOf(Date.now()), graceMs: 60_000 });
    expect((await readSnapshotStatus(redis, keys)).retired.map((r) => r.version)).toEqual([first.version]);
    expect(await redis.exists(keys.snapshotMeta(first.version))).toBe(1);
    const third = await runIngest(redis, keys, { files, asOf: 'now', sourceAsOf: sampleSourceAsOf(Date.now()), graceMs: 0, nowMs: Date.now() + 61_000 });
    expect(third.removedVersions).toContain(first.version);
    expect(await redis.exists(keys.snapshotMeta(first.version))).toBe(0);
  });

  it('an ingest stopped (SIGSTOP) past its lock TTL, while another ingest publishes, never publishes (fencing token)', async () => {
    const { prefix, keys } = freshKeys();
    const files = await writeSyntheticFiles(join(dir, 'stop'), 20_000);
    const same = { files: { census: files.census, authority: files.authority }, sourceAsOf: { authority: new Date().toISOString().slice(0, 10) }, force: true };
    await runIngest(redis, keys, same);
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'ingest', '--census', files.census,
      '--authority', files.authority, '--as-of-source', `authority=${same.sourceAsOf.authority}`, '--force'],
    { env: { ...process.env, REDIS_URL: url, REDIS_PREFIX: prefix, INGEST_LOCK_TTL_MS: '1000' }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    let writing: string | undefined;
    for (let i = 0; i < 1500 && !writing; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      writing = (await redis.zrange(keys.snapshotVersions, 0, -1))[0];
      if (writing && (await keysUnder(`${prefix}snapshot:${writing}:c:`)).length === 0) writing = undefined;
    }
    expect(writing).toBeDefined();
    child.kill('SIGSTOP');
    // Past the TTL: the lock lapses; another ingest takes it (a new fencing token), publishes and sweeps the orphan.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await redis.get(keys.ingestLock)).toBeNull();
    const second = await runIngest(redis, keys, same);
    child.kill('SIGCONT');
    expect(await exited).not.toBe(0);
    expect(stderr).toMatch(/ingest aborted, current snapshot unchanged: this ingest lost its lock while it ran \(fencing token \d+, now \d+: another ingest took over\); nothing was published/);
    expect(await redis.get(keys.snapshotCurrent)).toBe(second.version);
    expect(await keysUnder(`${prefix}snapshot:${writing!}:`)).toEqual([]);
    expect(await redis.hlen(keys.carrierBucket(second.version, 0))).toBeGreaterThan(0);
    expect(second.carriers).toBeGreaterThan(19_000);
  });

  it('a SIGKILLed ingest leaves the previous snapshot serving; the next ingest removes the orphan', async () => {
    const { prefix, keys } = freshKeys();
    const first = await seedSample(redis, keys, { quiet: true });
    const files = await writeSyntheticFiles(join(dir, 'kill'), 40_000);
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'ingest', '--census', files.census,
      '--authority', files.authority, '--as-of-source', `authority=${new Date().toISOString().slice(0, 10)}`, '--force'], { env: { ...process.env, REDIS_URL: url, REDIS_PREFIX: prefix }, stdio: 'ignore' });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    let orphan: string | undefined;
    for (let i = 0; i < 1500 && !orphan; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      orphan = (await redis.zrange(keys.snapshotVersions, 0, -1))[0];
      if (orphan && (await keysUnder(`${prefix}snapshot:${orphan}:c:`)).length === 0) orphan = undefined;
    }
    child.kill('SIGKILL');
    await exited;
    expect(orphan).toBeDefined();
    expect(await redis.get(keys.snapshotCurrent)).toBe(first.version);
    expect(await verdict(keys, '100001')).toMatchObject({ tier: 'preferred' });
    await seedSample(redis, keys, { quiet: true });
    expect(await keysUnder(`${prefix}snapshot:${orphan!}:`)).toEqual([]);
    expect(await redis.zrange(keys.snapshotVersions, 0, -1)).toEqual([]);
  });
});
