// BudgetLimiter's coalesced draw against a real Redis: every request of a turn joins one draw, and the draw's
// `settled` outcome is set by the time its promise resolves (the eligibility route reads it instead of awaiting).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BudgetLimiter } from '../../src/ratelimit/budget.js';
import type { RedisClient } from '../../src/redis/connection.js';
import { deleteByPrefix } from '../../src/redis/delete-by-prefix.js';
import { redisKeys } from '../../src/store/keys.js';
import { connectedRequestPathClient, randomPrefix } from '../helpers/harness.js';

const prefix = randomPrefix();
let redis: RedisClient;

beforeAll(async () => {
  redis = await connectedRequestPathClient(2000);
});

afterAll(async () => {
  await deleteByPrefix(redis, prefix);
  redis.disconnect();
});

describe('BudgetLimiter draws', () => {
  it('settles one draw per key and turn: `settled` is empty until its reply, then the outcome the promise gives', async () => {
    const failures: unknown[] = [];
    const budget = new BudgetLimiter(redis, redisKeys(prefix), (error) => failures.push(error));
    const tickets = [0, 1, 2].map(() => budget.enqueue('k1', 2));
    const draw = budget.pendingDraw('k1');
    expect(budget.pendingDraw('k1')).toBe(draw);
    expect(draw.settled).toBeNull();
    const outcome = await draw.outcome;
    expect(draw.settled).toBe(outcome);
    expect(tickets).toEqual([0, 1, 2]);
    expect(tickets.map((ticket) => outcome.decisionFor(ticket).allowed)).toEqual([true, true, false]);
    expect(failures).toEqual([]);
    // The next turn's request joins a new draw, which finds the budget spent.
    budget.enqueue('k1', 2);
    const next = budget.pendingDraw('k1');
    expect(next).not.toBe(draw);
    expect((await next.outcome).decisionFor(0)).toMatchObject({ allowed: false, limit: 2, remaining: 0, fromFallback: false });
    expect(next.settled?.admitted).toBe(0);
  });
});
