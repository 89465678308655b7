// The sliding-window Lua script against real Redis, with a short window so expiry is observable in a test.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedis, type RedisClient } from '../../src/redis/connection.js';
import { deleteByPrefix } from '../../src/redis/delete-by-prefix.js';
import { luaScripts } from '../../src/redis/scripts.js';
import { redisKeys } from '../../src/store/keys.js';
import { randomPrefix, testRedisTarget } from '../helpers/harness.js';

let redis: RedisClient;
const prefix = randomPrefix();
const keys = redisKeys(prefix);
let token = 0;

async function draw(keyId: string, limit: number, wanted: number, windowMs: number) {
  return luaScripts.slidingWindowDraw(redis, { log: keys.rateLog(keyId), sum: keys.rateSum(keyId) }, limit, windowMs, wanted, `t${token++}`);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(() => {
  redis = createRedis(testRedisTarget(), 'background');
});

afterAll(async () => {
  await deleteByPrefix(redis, prefix);
  redis.disconnect();
});

describe('sliding-window-draw.lua', () => {
  it('admits exactly the points that fit, as one N-point draw', async () => {
    expect(await draw('a', 10, 4, 60_000)).toMatchObject({ admitted: 4, remaining: 6, retryAfterMs: 0 });
    expect(await draw('a', 10, 8, 60_000)).toMatchObject({ admitted: 6, remaining: 0 });
    const refused = await draw('a', 10, 1, 60_000);
    expect(refused.admitted).toBe(0);
    expect(refused.retryAfterMs).toBeGreaterThan(59_000);
    expect(refused.retryAfterMs).toBeLessThanOrEqual(60_000);
  });

  it('frees points exactly when their admission leaves the window, oldest first', async () => {
    const windowMs = 400;
    expect((await draw('b', 5, 3, windowMs)).admitted).toBe(3);
    await sleep(200);
    expect((await draw('b', 5, 2, windowMs)).admitted).toBe(2);
    const full = await draw('b', 5, 1, windowMs);
    expect(full.admitted).toBe(0);
    // The first 3 points leave the window ~200 ms from now, not the whole window later.
    expect(full.retryAfterMs).toBeGreaterThan(100);
    expect(full.retryAfterMs).toBeLessThanOrEqual(220);
    await sleep(full.retryAfterMs + 20);
    expect((await draw('b', 5, 5, windowMs)).admitted).toBe(3);
  });

  it('never admits more than the limit in any window, whatever the interleaving', async () => {
    const windowMs = 300;
    const limit = 7;
    const admissions: Array<{ at: number; count: number }> = [];
    const until = Date.now() + 1000;
    while (Date.now() < until) {
      const wanted = 1 + Math.floor(Math.random() * 4);
      const { admitted } = await draw('c', limit, wanted, windowMs);
      if (admitted > 0) admissions.push({ at: Date.now(), count: admitted });
      await sleep(Math.random() * 30);
    }
    for (const { at } of admissions) {
      // Client clocks lag Redis' slightly, so check windows a little shorter than the real one.
      const inWindow = admissions.filter((other) => other.at > at - (windowMs - 20) && other.at <= at);
      expect(inWindow.reduce((sum, other) => sum + other.count, 0)).toBeLessThanOrEqual(limit);
    }
    expect(admissions.reduce((sum, admission) => sum + admission.count, 0)).toBeGreaterThan(limit);
  });

  it('keeps budgets of different keys apart', async () => {
    expect((await draw('d1', 2, 2, 60_000)).admitted).toBe(2);
    expect((await draw('d2', 2, 2, 60_000)).admitted).toBe(2);
  });
});
