// Snapshot retention against a real Redis: at most SNAPSHOT_MAX_VERSIONS versions at once (the serving one and the
// one being written included), retired versions swept on a schedule by the worker role (one sweeper at a time), and
// orphans of a lapsed ingest swept so that ingest can never publish.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { IngestFiles } from '../../src/ingest/run.js';
import { runIngest } from '../../src/ingest/run.js';
import { sampleSourceAsOf, writeSampleFiles } from '../../src/ingest/sample.js';
import { createRedis } from '../../src/redis/connection.js';
import { deleteByPrefix } from '../../src/redis/delete-by-prefix.js';
import { redisKeys, type RedisKeys } from '../../src/store/keys.js';
import { sweepOnce } from '../../src/store/snapshot-retention.js';
import { acquireIngestLock, FencedOutError, newSnapshotVersion, SnapshotWriter } from '../../src/store/snapshot-writer.js';
import { keysUnder } from '../helpers/keys-under.js';
import { randomPrefix, startTestApp, testRedisTarget } from '../helpers/harness.js';

const redis = createRedis(testRedisTarget(), 'background');
const prefixes: string[] = [];
let dir = '';
let files: IngestFiles;

function freshKeys(): { prefix: string; keys: RedisKeys } {
  const prefix = randomPrefix();
  prefixes.push(prefix);
  return { prefix, keys: redisKeys(prefix) };
}

/** Versions that still have any key in Redis (meta or carrier buckets). */
async function versionsHeld(prefix: string): Promise<string[]> {
  const found = new Set<string>();
  for (const key of await keysUnder(redis, prefix)) {
    const match = /snapshot:(v[0-9a-z]+):(?:meta|c:|not-eligible)/.exec(key);
    if (match?.[1]) found.add(match[1]);
  }
  return [...found].sort();
}

const ingest = (keys: RedisKeys, options: { graceMs: number; maxVersions?: number; nowMs?: number }) =>
  runIngest(redis, keys, { files, asOf: 'now', sourceAsOf: sampleSourceAsOf(Date.now()), force: true, ...options });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ce-retention-'));
  files = await writeSampleFiles(join(dir, 'sample'));
});
afterEach(async () => {
  for (const prefix of prefixes.splice(0)) await deleteByPrefix(redis, prefix);
});
afterAll(async () => {
  redis.disconnect();
  await rm(dir, { recursive: true, force: true });
});

describe('snapshot retention', () => {
  it('keeps at most SNAPSHOT_MAX_VERSIONS versions: the oldest retired one goes before the next is written, grace or not', async () => {
    const { prefix, keys } = freshKeys();
    const hour = 3_600_000;
    const v1 = await ingest(keys, { graceMs: hour });
    const v2 = await ingest(keys, { graceMs: hour });
    const v3 = await ingest(keys, { graceMs: hour });
    // Serving v3, v1 and v2 retired within their grace: three versions, the cap.
    expect(await versionsHeld(prefix)).toEqual([v1.version, v2.version, v3.version].sort());
    const v4 = await ingest(keys, { graceMs: hour });
    expect(v4.removedVersions).toEqual([v1.version]);
    expect(v4.warnings.some((line) => line.includes(`snapshot version ${v1.version} removed before its retire grace ended, to keep at most SNAPSHOT_MAX_VERSIONS=3 versions`))).toBe(true);
    expect(await versionsHeld(prefix)).toEqual([v2.version, v3.version, v4.version].sort());
    expect(await redis.zrange(keys.snapshotRetired, 0, -1)).toEqual([v2.version, v3.version]);

    // A cap of 2: the serving version and the one being written; every retired version goes first.
    const v5 = await ingest(keys, { graceMs: hour, maxVersions: 2 });
    expect(v5.removedVersions.sort()).toEqual([v2.version, v3.version].sort());
    expect(await versionsHeld(prefix)).toEqual([v4.version, v5.version].sort());
    expect(await redis.get(keys.snapshotCurrent)).toBe(v5.version);
  });

  it('sweeps a retired version once its grace is over, with no ingest running, one sweeper at a time', async () => {
    const { prefix, keys } = freshKeys();
    const first = await ingest(keys, { graceMs: 60_000 });
    const second = await ingest(keys, { graceMs: 60_000 });
    const warnings: string[] = [];
    const warn = (line: string) => warnings.push(line);
    const options = { maxVersions: 3, leaseMs: 30_000 };
    // Within the grace: nothing to remove, but the lease is now held by sweeper A.
    expect(await sweepOnce(redis, keys, { ...options, nowMs: Date.now(), token: 'A' }, warn)).toEqual([]);
    // Sweeper B finds the lease taken and does nothing, even once the grace is over.
    expect(await sweepOnce(redis, keys, { ...options, nowMs: Date.now() + 61_000, token: 'B' }, warn)).toBeNull();
    expect(await versionsHeld(prefix)).toEqual([first.version, second.version].sort());
    expect(await sweepOnce(redis, keys, { ...options, nowMs: Date.now() + 61_000, token: 'A' }, warn)).toEqual([first.version]);
    expect(await versionsHeld(prefix)).toEqual([second.version]);
    expect(await redis.zrange(keys.snapshotRetired, 0, -1)).toEqual([]);
    expect(warnings).toEqual([]);
  });

  it('the worker role sweeps on its schedule: a retired version past its grace leaves without another ingest', async () => {
    const app = await startTestApp({ ROLE: 'worker', SNAPSHOT_SWEEP_INTERVAL_SECONDS: '5' });
    const prefix = app.config.REDIS_PREFIX;
    try {
      const first = await ingest(app.keys, { graceMs: 60_000 });
      const second = await ingest(app.keys, { graceMs: 60_000 });
      // Its grace ends now (the ingest wrote "due in a minute").
      await redis.zadd(app.keys.snapshotRetired, Date.now() - 1, first.version);
      let held = await versionsHeld(prefix);
      for (let i = 0; i < 200 && held.includes(first.version); i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        held = await versionsHeld(prefix);
      }
      expect(held).toEqual([second.version]);
      expect(await redis.get(app.keys.snapshotSweeper)).not.toBeNull();
    } finally {
      await app.stop();
      await deleteByPrefix(redis, prefix);
    }
    // Stopping gives the lease up.
    expect(await redis.get(app.keys.snapshotSweeper)).toBeNull();
  });

  it('sweeps an orphan only while no ingest holds the lock, and the ingest that lost its lock can never publish it', async () => {
    const { prefix, keys } = freshKeys();
    const serving = await ingest(keys, { graceMs: 60_000 });
    const lock = await acquireIngestLock(redis, keys, 30_000);
    const writer = new SnapshotWriter(redis, keys, newSnapshotVersion(Date.now()));
    await writer.begin(Date.now());
    // One full pipeline (1,000 records) reaches Redis before the lock lapses.
    for (let mc = 500_000; mc < 501_000; mc++) await writer.put(String(mc), { ambiguous: ['1', '2'] });
    for (let i = 0; i < 100 && (await keysUnder(redis, `${prefix}snapshot:${writer.version}:c:`)).length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect((await keysUnder(redis, `${prefix}snapshot:${writer.version}:c:`)).length).toBeGreaterThan(0);
    const options = { maxVersions: 3, leaseMs: 30_000, token: 'S' };
    // Lock held: a version being written is a live ingest's, counted, never swept.
    expect(await sweepOnce(redis, keys, { ...options, nowMs: Date.now() }, () => undefined)).toEqual([]);
    expect(await redis.zrange(keys.snapshotVersions, 0, -1)).toEqual([writer.version]);
    // The lock lapses (a paused ingest past its TTL): the version is an orphan now.
    await redis.del(keys.ingestLock);
    expect(await sweepOnce(redis, keys, { ...options, nowMs: Date.now() }, () => undefined)).toEqual([writer.version]);
    expect(await redis.zrange(keys.snapshotVersions, 0, -1)).toEqual([]);
    expect(await keysUnder(redis, `${prefix}snapshot:${writer.version}:`)).toEqual([]);
    // The paused ingest resumes and tries to publish with its token: fenced out, nothing changes.
    const meta = JSON.parse((await redis.get(keys.snapshotMeta(serving.version))) ?? '{}');
    await expect(writer.commit(meta, Date.now(), 60_000, undefined, lock.token)).rejects.toBeInstanceOf(FencedOutError);
    await lock();
    expect(await redis.get(keys.snapshotCurrent)).toBe(serving.version);
    await writer.abort();
    expect(await versionsHeld(prefix)).toEqual([serving.version]);
  });
});
