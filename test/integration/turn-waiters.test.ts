// The hot path's promise-free forms against real Redis: a budget draw's waiters (BudgetLimiter.enqueue with a
// waiter) and a record write's waiters (EligibilityService.recordThen) are told exactly what the promise forms
// are told, in order, and one waiter throwing costs the others nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordContext } from '../../src/decisions/record-codec.js';
import { DecisionReader } from '../../src/decisions/reader.js';
import { DecisionRecorder } from '../../src/decisions/recorder.js';
import { BudgetLimiter, type BudgetDecision } from '../../src/ratelimit/budget.js';
import { createRedis } from '../../src/redis/connection.js';
import { EligibilityService, isUnrecorded, type Verdict } from '../../src/verdict/eligibility.js';
import { cleanCarrier, startTestApp, type TestApp } from '../helpers/harness.js';
import { freePort } from '../helpers/private-redis.js';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
  await t.publishRules();
  await t.writeSnapshot([cleanCarrier('100001')]);
  await t.app.parts.state.poll();
});

afterAll(async () => {
  await t.stop();
});

const context: RecordContext = { kind: 'check', keyId: 'k', account: 'acme', requestId: 'r', reference: null, jobId: null, row: null };

describe('budget draw waiters', () => {
  it('tell each request of one coalesced draw its own decision, in ticket order, as the promise form does', async () => {
    const budget = new BudgetLimiter(t.redis, t.keys, () => undefined);
    const told: Array<{ ticket: number; decision: BudgetDecision }> = [];
    const waiter = (ticket: number) => ({ onBudget: (decision: BudgetDecision) => told.push({ ticket, decision }) });
    const tickets = [0, 1, 2].map((ticket) => budget.enqueue('waiters-a', 4, waiter(ticket)));
    // A request of the same turn that uses the promise form instead, then two more waiters.
    const promised = budget.enqueue('waiters-a', 4);
    const outcome = budget.outcome('waiters-a');
    const thrower = { onBudget: () => { throw new Error('this waiter fails'); } };
    budget.enqueue('waiters-a', 4, thrower);
    const last = budget.enqueue('waiters-a', 4, waiter(5));
    expect([...tickets, promised, last]).toEqual([0, 1, 2, 3, 5]);

    const settled = await outcome;
    await expect.poll(() => told.length).toBe(4);
    expect(told.map(({ ticket, decision }) => [ticket, decision.allowed])).toEqual([[0, true], [1, true], [2, true], [5, false]]);
    expect(settled.admitted).toBe(4);
    expect(settled.decisionFor(promised).allowed).toBe(true);
    expect(told[3]?.decision).toBe(settled.decisionFor(5));
    expect(told[0]?.decision).toMatchObject({ limit: 4, remaining: 0, fromFallback: false });
  });
});

describe('record write waiters (recordThen)', () => {
  function recordThen(service: EligibilityService, verdict: Verdict): Promise<Verdict> {
    return new Promise((resolve) => {
      service.recordThen(verdict, context, { onRecorded: (ok) => resolve(service.afterRecord(verdict, ok)) });
    });
  }

  it('answer with the verdict itself once its record is stored', async () => {
    const { parts } = t.app;
    const service = new EligibilityService(parts.redis, parts.keys, parts.state, {
      cacheMax: 10, maxDataAgeSeconds: parts.config.MAX_DATA_AGE_SECONDS,
      recorder: new DecisionRecorder(parts.redis, parts.keys, { retentionSeconds: 3600, maxDataAgeSeconds: 3600 }),
    });
    await service.evaluate('100001');
    const verdict = service.evaluateNow('100001') as Verdict;
    expect(verdict.cache_hit).toBe(true);
    const answered = await recordThen(service, verdict);
    expect(answered).toBe(verdict);
    expect(isUnrecorded(answered)).toBe(false);
    expect(await new DecisionReader(t.redis, t.keys).readStored(verdict.decision_id)).toMatchObject({ verdict: { decision_id: verdict.decision_id } });
  });

  it('answer with a degraded, unrecorded verdict (a new id) when the write fails', async () => {
    const { parts } = t.app;
    const dead = createRedis(`redis://127.0.0.1:${await freePort()}`, 'request-path', 100);
    const service = new EligibilityService(parts.redis, parts.keys, parts.state, {
      cacheMax: 10, maxDataAgeSeconds: parts.config.MAX_DATA_AGE_SECONDS,
      recorder: new DecisionRecorder(dead, parts.keys, { retentionSeconds: 3600, maxDataAgeSeconds: 3600 }),
    });
    try {
      await service.evaluate('100001');
      const verdict = service.evaluateNow('100001') as Verdict;
      expect(verdict.eligible).toBe(true);
      const answered = await recordThen(service, verdict);
      expect(answered).toMatchObject({ eligible: false, degraded: true, reasons: ['backend_unavailable'] });
      expect(answered.decision_id).not.toBe(verdict.decision_id);
      expect(isUnrecorded(answered)).toBe(true);
    } finally {
      dead.disconnect();
      await parts.state.poll();
    }
  });
});
