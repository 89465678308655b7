// decision-records-write.lua against a real Redis: a turn's records, sent as one packed argument, land exactly as
// HSET field/value pairs would; a newline inside an id or a record (which would shift every pair after it) makes
// the script refuse the whole write instead of storing records under the wrong ids.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedis, type RedisClient } from '../../src/redis/connection.js';
import { deleteByPrefix } from '../../src/redis/delete-by-prefix.js';
import { luaScripts } from '../../src/redis/scripts.js';
import { randomPrefix, testRedisTarget } from '../helpers/harness.js';

let redis: RedisClient;
const prefix = randomPrefix();
let serial = 0;
const bucketKey = () => `${prefix}decisions:{b${(serial += 1)}}`;

beforeAll(async () => {
  redis = createRedis(testRedisTarget(), 'request-path');
  if (redis.status !== 'ready') await new Promise((resolve) => redis.once('ready', resolve));
});

afterAll(async () => {
  await deleteByPrefix(redis, prefix);
  redis.disconnect();
});

/** `count` (id, record) pairs; records are JSON text, some with escaped newlines, quotes and non-ASCII. */
function pairs(count: number): string[] {
  const out: string[] = [];
  for (let index = 0; index < count; index += 1) {
    out.push(`0193b1c2-0000-7000-8000-${String(index).padStart(12, '0')}`,
      JSON.stringify([1, 'c', `k${index}`, 'acct', `line one\nline "two" ${index}`, 'Zürich ✓', index]));
  }
  return out;
}

describe('decision-records-write.lua', () => {
  it('stores every pair as HSET would, including more records than one HSET slice (500)', async () => {
    const key = bucketKey();
    const written = pairs(1_234);
    await luaScripts.decisionRecordsWrite(redis, key, written, 0);
    const stored = await redis.hgetall(key);
    const expected: Record<string, string> = {};
    for (let index = 0; index < written.length; index += 2) expected[written[index] as string] = written[index + 1] as string;
    expect(stored).toEqual(expected);
    // TTL 0 leaves the key's TTL alone: none was set.
    expect(await redis.ttl(key)).toBe(-1);
  });

  it('keeps an empty record and sets the TTL when asked, without touching other fields', async () => {
    const key = bucketKey();
    await redis.hset(key, 'earlier', 'kept');
    await luaScripts.decisionRecordsWrite(redis, key, ['id-a', '', 'id-b', '[1]'], 120);
    expect(await redis.hgetall(key)).toEqual({ earlier: 'kept', 'id-a': '', 'id-b': '[1]' });
    const ttl = await redis.ttl(key);
    expect(ttl).toBeGreaterThan(100);
    expect(ttl).toBeLessThanOrEqual(120);
  });

  it('refuses the whole write when a raw newline would shift the pairs, storing nothing', async () => {
    for (const bad of [
      ['id-a', '[1,"a"]\n', 'id-b', '[2]'],
      ['id-a', '[1]', 'id\nb', '[2]'],
      ['id-a', 'x\ny\nz', 'id-b', '[2]'],
    ]) {
      const key = bucketKey();
      await expect(luaScripts.decisionRecordsWrite(redis, key, bad, 60)).rejects.toThrow(/decision-records-write/);
      expect(await redis.exists(key)).toBe(0);
    }
  });

  it('rejects an odd or empty list before sending anything', async () => {
    await expect(luaScripts.decisionRecordsWrite(redis, bucketKey(), ['id-a'], 0)).rejects.toThrow(/one record per decision id/);
    await expect(luaScripts.decisionRecordsWrite(redis, bucketKey(), [], 0)).rejects.toThrow(/one record per decision id/);
  });
});
