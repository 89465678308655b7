// The HTTP bench's cleanup between measured runs (bench/record-cleanup.ts) against a real Redis: it removes the
// decision records the servers wrote (the service's bucket hashes, the peers' SETs) and nothing else under the
// bench's prefix, and returns only once Redis has freed them.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { peerRecordsHead } from '../../bench/peers/peer-keys.js';
import { clearRecords } from '../../bench/record-cleanup.js';
import { deleteByPrefix } from '../../src/redis/delete-by-prefix.js';
import { redisKeys } from '../../src/store/keys.js';
import { randomPrefix } from '../helpers/harness.js';

let redis: Redis;
const prefix = randomPrefix();
const other = randomPrefix();

beforeAll(() => {
  redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
});

afterAll(async () => {
  await deleteByPrefix(redis, prefix);
  await deleteByPrefix(redis, other);
  redis.disconnect();
});

describe('the bench clearing decision records between runs', () => {
  it('unlinks the service\'s record buckets and the peers\' records, keeps every other key', async () => {
    const keys = redisKeys(prefix);
    const bucket = keys.decisionBucket(1_764_000_000);
    // A bucket large enough that UNLINK frees it on Redis' background thread.
    const fields: string[] = [];
    for (let i = 0; i < 5000; i += 1) fields.push(`id${i}`, 'x'.repeat(200));
    await redis.hset(bucket, ...fields);
    const peerRecord = `${peerRecordsHead(prefix)}0190a1b2`;
    await redis.set(peerRecord, '{"verdict":{}}', 'EX', 600);
    const kept = [keys.decisionEvidence('v1', '12345', 'a'), keys.apiKey('kid'), `${prefix}peer:rl:1`];
    for (const key of kept) await redis.set(key, 'kept');
    await redis.set(`${peerRecordsHead(other)}0190a1b2`, 'another bench');

    expect(await clearRecords(redis, prefix)).toBe(2);

    expect(await redis.exists(bucket, peerRecord)).toBe(0);
    expect(await redis.exists(...kept)).toBe(kept.length);
    expect(await redis.get(`${peerRecordsHead(other)}0190a1b2`)).toBe('another bench');
    expect((await redis.info('memory')).match(/lazyfree_pending_objects:(\d+)/)?.[1]).toBe('0');
  });

  it('finds nothing to remove in a Redis without records', async () => {
    expect(await clearRecords(redis, randomPrefix())).toBe(0);
  });
});
