// Before writing, the ingest checks that Redis can hold one more snapshot version under its maxmemory: a private
// redis-server with a small maxmemory refuses the ingest in one line naming the shortfall, and the served data is
// byte-identical; with room, the same ingest goes through.
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IngestError } from '../../src/ingest/errors.js';
import { measureBytesPerCarrier } from '../../src/ingest/headroom.js';
import { runIngest, type IngestFiles } from '../../src/ingest/run.js';
import { sampleSourceAsOf, writeSampleFiles } from '../../src/ingest/sample.js';
import { createRedis, type RedisClient } from '../../src/redis/connection.js';
import { redisKeys } from '../../src/store/keys.js';
import { keysUnder } from '../helpers/keys-under.js';
import { PrivateRedis } from '../helpers/private-redis.js';

const keys = redisKeys('hr:');
let server: PrivateRedis;
let redis: RedisClient;
let dir = '';
let files: IngestFiles;

const ingest = () => runIngest(redis, keys, { files, asOf: 'now', sourceAsOf: sampleSourceAsOf(Date.now()), force: true, graceMs: 0 });
/** used_memory once the client buffers of earlier replies are given back (the lowest of a few readings). */
async function settledUsedMemory(): Promise<number> {
  let lowest = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 5; i++) {
    lowest = Math.min(lowest, await usedMemory());
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return lowest;
}
const usedMemory = async () => Number(/^used_memory:(\d+)/m.exec(await redis.info('memory'))?.[1]);

/** Every key under the prefix and its DUMP, hashed (the fencing counter is the ingests' bookkeeping, not data). */
async function served(): Promise<string> {
  const names = (await keysUnder(redis, 'hr:')).filter((name) => !name.endsWith('snapshot:versions:fence')).sort();
  const hash = createHash('sha256');
  for (const name of names) hash.update(name).update('\0').update((await redis.dumpBuffer(name)) ?? Buffer.alloc(0));
  return hash.digest('hex');
}

beforeAll(async () => {
  server = await PrivateRedis.start();
  redis = createRedis({ mode: 'standalone', url: server.url }, 'background');
  dir = await mkdtemp(join(tmpdir(), 'ce-headroom-'));
  files = await writeSampleFiles(join(dir, 'sample'));
});
afterAll(async () => {
  redis.disconnect();
  await server.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('Redis headroom for one more snapshot version', () => {
  it('refuses an ingest that would not fit under maxmemory, naming the shortfall, and writes nothing', async () => {
    const first = await ingest();
    const version = first.version;
    const perCarrier = await measureBytesPerCarrier(redis, keys, version, (await redis.hkeys(keys.carrierBucket(version, 100_001 % 16_384))).map(Number));
    expect(perCarrier).toBeGreaterThan(50);
    const size = perCarrier! * first.carriers;
    // Hash the served data first: DUMPing every key swells the client's buffers, which count in used_memory.
    const before = await served();
    // Room for a quarter of a version above what is used now.
    await redis.config('SET', 'maxmemory', String(await settledUsedMemory() + Math.round(size! / 4)));
    const refusal = await ingest().then(() => null, (error: unknown) => error);
    expect(refusal, String((refusal as { command?: unknown }).command ? JSON.stringify((refusal as { command?: unknown }).command).slice(0, 300) : refusal)).toBeInstanceOf(IngestError);
    const line = (refusal as Error).message;
    expect(line.split('\n')).toHaveLength(1);
    expect(line).toMatch(/^redis: not enough memory for one more snapshot version: [\d.]+ [KM]B free of maxmemory [\d.]+ MB \([\d.]+ MB used\), the new version needs about [\d.]+ KB \(274 dockets × \d+ B per carrier in the serving version, plus 10%\); short by [\d.]+ KB\. Raise maxmemory/);
    expect(await served()).toBe(before);
    expect(await redis.get(keys.snapshotCurrent)).toBe(version);

    // Room for the version: the same ingest goes through.
    await redis.config('SET', 'maxmemory', String(await usedMemory() + 20 * size!));
    const second = await ingest();
    expect(second.previous).toBe(version);
    expect(await redis.get(keys.snapshotCurrent)).toBe(second.version);
  });

  it('on a first ingest, estimates from the docket count', async () => {
    const fresh = redisKeys('hr2:');
    await redis.config('SET', 'maxmemory', String(await usedMemory() + 200_000));
    const refusal = await runIngest(redis, fresh, { files, asOf: 'now', sourceAsOf: sampleSourceAsOf(Date.now()), force: true })
      .then(() => null, (error: unknown) => error);
    expect((refusal as Error).message).toMatch(/the new version needs about [\d.]+ MB \([\d,]+ dockets × 110 B and the buckets' own cost, plus 10%\); short by [\d.]+ MB\./);
    expect(await keysUnder(redis, 'hr2:snapshot:v')).toEqual([]);
    await redis.config('SET', 'maxmemory', '0');
  });
});
