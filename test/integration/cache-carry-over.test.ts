// A snapshot switch carries the carrier cache over (src/eligibility/cache-carry-over.ts), against a real Redis and the
// real HTTP port: the carriers a replica had cached are read again from the new snapshot before it is served, so
// the first checks after an ingest are cache hits that already give the new snapshot's verdicts.
import { afterEach, describe, expect, it } from 'vitest';
import type { SnapshotMeta } from '../../src/core/carrier.js';
import type { RedisClient } from '../../src/redis/connection.js';
import { deleteByPrefix } from '../../src/redis/delete-by-prefix.js';
import { encodeCarrier } from '../../src/store/carrier-codec.js';
import { carrierBucket, redisKeys } from '../../src/store/keys.js';
import { createLogger } from '../../src/log.js';
import { carryOver } from '../../src/eligibility/cache-carry-over.js';
import { CarrierCache } from '../../src/eligibility/carrier-cache.js';
import { cleanCarrier, connectedRequestPathClient, randomPrefix, startTestApp, type TestApp } from '../helpers/harness.js';
import { logCollector } from '../helpers/log-collector.js';

interface Answer { eligible: boolean; found: boolean; tier: string | null; reasons: string[]; cache_hit: boolean; data_as_of: string | null }

let t: TestApp | null = null;

afterEach(async () => {
  await t?.stop();
  t = null;
});

async function check(app: TestApp, key: string, mc: string): Promise<Answer> {
  const response = await app.post('/v1/eligibility', { mc_number: mc }, { 'x-api-key': key });
  expect(response.status).toBe(200);
  return await response.json() as Answer;
}

const A_AS_OF = '2026-11-20T06:00:00.000Z';
const B_AS_OF = '2026-11-21T06:00:00.000Z';
const fresh = (asOf: string) => ({ data_as_of: asOf, created_at: new Date().toISOString() });
const revoked = { status: 'inactive' as const, granted_on: '2015-03-01', revocation_pending_on: null, revoked_on: '2026-11-20' };

/** Snapshot A (carriers 1–12), a key, and carriers 7, 8 and 10 checked twice, so the replica has them cached. */
async function servingA(env: Record<string, string> = {}, log = logCollector()): Promise<{ app: TestApp; key: string }> {
  const app = await startTestApp({ MAX_DATA_AGE_SECONDS: String(365 * 86_400), ...env }, { log: createLogger('info', 'api', log) });
  t = app;
  await app.publishRules();
  await app.writeSnapshot(Array.from({ length: 12 }, (_, index) => cleanCarrier(String(index + 1))), fresh(A_AS_OF));
  const { key } = await app.createKey();
  for (const mc of ['7', '8', '10']) {
    expect((await check(app, key, mc)).cache_hit).toBe(false);
    expect(await check(app, key, mc)).toMatchObject({ cache_hit: true, eligible: true, data_as_of: A_AS_OF });
  }
  return { app, key };
}

/** Snapshot B: carrier 8 revoked since A, carrier 10 gone, the rest as in A. */
async function switchToB(app: TestApp): Promise<void> {
  const carriers = Array.from({ length: 12 }, (_, index) => String(index + 1)).filter((mc) => mc !== '10')
    .map((mc) => cleanCarrier(mc, mc === '8' ? { authority: revoked } : {}));
  await app.writeSnapshot(carriers, fresh(B_AS_OF));
}

describe('snapshot switch: the carrier cache carried over', () => {
  it('answers the cached carriers from the cache at once, with the new snapshot\'s data', async () => {
    const log = logCollector();
    const { app, key } = await servingA({}, log);
    await switchToB(app);
    // The switch's log line says what was carried over: the three carriers checked under A.
    const switched = log.text().split('\n').filter((line) => line.includes('"serving snapshot"'))
      .map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.data_as_of === B_AS_OF);
    expect(switched).toEqual([expect.objectContaining({ cache_carried_over: 3, cache_carry_over_wanted: 3 })]);
    expect(await check(app, key, '7')).toMatchObject({ cache_hit: true, eligible: true, data_as_of: B_AS_OF });
    // Revoked in B: the carried lookup is B's record, not A's.
    const eight = await check(app, key, '8');
    expect(eight).toMatchObject({ cache_hit: true, eligible: false, tier: 'blocked', data_as_of: B_AS_OF });
    expect(eight.reasons.length).toBeGreaterThan(0);
    // Gone from B: carried over as not found.
    expect(await check(app, key, '10')).toMatchObject({ cache_hit: true, found: false, eligible: false, data_as_of: B_AS_OF });
    // Never checked before the switch: read from Redis as before.
    expect(await check(app, key, '9')).toMatchObject({ cache_hit: false, eligible: true, data_as_of: B_AS_OF });
  });

  it('with CARRIER_CACHE_WARM_MAX=0 starts the new snapshot with an empty cache, as before', async () => {
    const { app, key } = await servingA({ CARRIER_CACHE_WARM_MAX: '0' });
    await switchToB(app);
    expect(await check(app, key, '8')).toMatchObject({ cache_hit: false, eligible: false, data_as_of: B_AS_OF });
    expect(await check(app, key, '8')).toMatchObject({ cache_hit: true, eligible: false, data_as_of: B_AS_OF });
  });

  it('switches all the same when another preparation of the switch fails', async () => {
    const { app, key } = await servingA();
    app.app.parts.state.addSnapshotPreparer({ prepareSnapshot: () => Promise.reject(new Error('carry-over read failed')) });
    await switchToB(app);
    // The carry-over itself still ran (it is the first preparer); the failing one is skipped, not the switch.
    expect(await check(app, key, '8')).toMatchObject({ cache_hit: true, eligible: false, data_as_of: B_AS_OF });
    expect(app.app.parts.state.snapshot?.data_as_of).toBe(B_AS_OF);
  });
});

describe('carryOver(): the reading itself', () => {
  const prefix = randomPrefix();
  const keys = redisKeys(prefix);
  const next = { version: 'v2' } as SnapshotMeta;
  let client: RedisClient | null = null;

  afterEach(async () => {
    if (client === null) return;
    await deleteByPrefix(client, prefix);
    client.disconnect();
    client = null;
  });

  /** A cache holding carriers 1..n of v1, and v2's buckets holding carriers 1..n-1 (the last one gone). */
  async function arrange(n: number): Promise<{ redis: RedisClient; cache: CarrierCache }> {
    const redis = await connectedRequestPathClient(2000);
    client = redis;
    const cache = new CarrierCache(10_000);
    for (let mc = 1; mc <= n; mc += 1) {
      cache.set('v1', String(mc), { kind: 'ambiguous', mc: String(mc), dot_numbers: [] });
      if (mc < n) await redis.hset(keys.carrierBucket('v2', carrierBucket(String(mc))), String(mc), encodeCarrier(cleanCarrier(String(mc))));
    }
    return { redis, cache };
  }

  it('reads every cached carrier from the new snapshot, across read chunks, and adopts only when told', async () => {
    const { redis, cache } = await arrange(2500);
    const carried = await carryOver(redis, keys, cache, next, { max: 10_000, budgetMs: 60_000 });
    expect(carried).toMatchObject({ carried: 2500, wanted: 2500 });
    expect(cache.get('v2', '1')).toBeUndefined();
    carried?.adopt();
    expect(cache.get('v2', '1')).toMatchObject({ kind: 'found', record: { mc: '1', legal_name: 'CARRIER 1 LLC' } });
    expect(cache.get('v2', '2499')).toMatchObject({ kind: 'found' });
    expect(cache.get('v2', '2500')).toEqual({ kind: 'not_found' });
  });

  it('reads at most `max`, the most recently used first, and stops reading when the budget is spent', async () => {
    const { redis, cache } = await arrange(3);
    cache.get('v1', '1');
    const limited = await carryOver(redis, keys, cache, next, { max: 1, budgetMs: 60_000 });
    expect(limited).toMatchObject({ carried: 1, wanted: 1 });
    limited?.adopt();
    expect([...cache.recent().mcs]).toEqual(['1']);
    expect(cache.recent().version).toBe('v2');
    expect(await carryOver(redis, keys, cache, { version: 'v3' } as SnapshotMeta, { max: 10, budgetMs: 0 })).toMatchObject({ carried: 0, wanted: 1 });
  });

  it('has nothing to carry for an empty cache or one that already holds the new snapshot', async () => {
    const { redis, cache } = await arrange(2);
    expect(await carryOver(redis, keys, new CarrierCache(10), next, { max: 10, budgetMs: 1000 })).toBeNull();
    (await carryOver(redis, keys, cache, next, { max: 10, budgetMs: 1000 }))?.adopt();
    expect(await carryOver(redis, keys, cache, next, { max: 10, budgetMs: 1000 })).toBeNull();
  });

  it('rejects when Redis refuses a read, leaving the cache as it was', async () => {
    const { redis, cache } = await arrange(2);
    // A bucket that is not a hash: Redis answers WRONGTYPE to the read.
    await redis.set(keys.carrierBucket('v2', carrierBucket('2')), 'not a hash');
    await expect(carryOver(redis, keys, cache, next, { max: 10, budgetMs: 1000 })).rejects.toThrow(/WRONGTYPE/);
    expect(cache.recent().version).toBe('v1');
    expect([...cache.recent().mcs]).toEqual(['2', '1']);
  });
});
