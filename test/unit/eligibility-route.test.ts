// The eligibility route's use of its parts, driven with fakes (the real parts over real Redis are in
// test/integration/http-eligibility.test.ts): which path a check takes around its budget draw, what an early
// check refused by its draw does with its record, and that a failing early check cannot end the process.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StoredApiKey } from '../../src/auth/api-key.js';
import { decide } from '../../src/core/decide.js';
import { DEFAULT_RULE_SET, SOURCE_NAMES } from '../../src/core/ruleset.js';
import { AppError } from '../../src/errors.js';
import { eligibilityRoute, type EligibilityDeps } from '../../src/eligibility/route.js';
import type { HttpRequest, HttpResponse, Route } from '../../src/http/types.js';
import { DrawOutcome, type BudgetDecision } from '../../src/ratelimit/budget.js';
import { NOT_FOUND } from '../../src/store/carrier-codec.js';
import { VerdictTemplates } from '../../src/eligibility/verdict-bytes.js';
import { toVerdict } from '../../src/decisions/decision-id.js';
import type { Verdict } from '../../src/core/verdict.js';

const KEY = { id: 'k1', account: 'acme', rate_per_minute: 100, scopes: ['eligibility'] } as unknown as StoredApiKey;
const NOW = Date.parse('2026-11-20T12:00:00Z');

const RULESET = { version: 1, published_at: '2026-11-01T00:00:00Z', rules: DEFAULT_RULE_SET };
const SNAPSHOT = {
  version: 'v1', data_as_of: '2026-11-20T06:00:00Z', created_at: '2026-11-20T06:00:00Z', carrier_count: 1,
  sources: Object.fromEntries(SOURCE_NAMES.map((source) => [source, { present: true, as_of: '2026-11-20T06:00:00Z', rows: 1 }])),
};

function verdictFor(mc: string, degraded = false): Verdict {
  const decision = decide({
    lookup: degraded ? null : NOT_FOUND, backendAvailable: !degraded, maxDataAgeSeconds: 172_800, nowMs: NOW, ruleset: RULESET, snapshot: SNAPSHOT,
  });
  return toVerdict(decision, mc, NOW, false);
}

const decision = (allowed: boolean, fromFallback = false): BudgetDecision => ({
  allowed, limit: 100, remaining: allowed ? 50 : 0, retryAfterSeconds: 3, resetSeconds: 60, fromFallback,
});

interface Scenario {
  likelyAdmits: boolean;
  /** What the draw decides, settled a turn after the request (as a Redis reply would be). */
  draw: BudgetDecision;
  /** The draw already settled when the route resumes (read from DrawHandle.settled), instead of a turn later. */
  drawSettled?: boolean;
  /** What check() gives for (mc, backendOk). */
  check?: (mc: string, backendOk: boolean) => Promise<Verdict>;
}

function harness(scenario: Scenario) {
  const calls = { checks: [] as Array<{ mc: string; backendOk: boolean }>, withdrawn: [] as Verdict[], counted: 0 };
  const deps: EligibilityDeps = {
    auth: {
      authenticateCached: () => ({ kind: 'ok', key: KEY }),
      authenticate: async () => ({ kind: 'ok', key: KEY }),
    },
    budget: {
      enqueue: () => 0,
      pendingDraw: () => {
        const outcome = new DrawOutcome(
          scenario.draw.allowed ? 1 : 0, scenario.draw.allowed ? scenario.draw : null, scenario.draw.allowed ? null : scenario.draw,
        );
        // 'settled': already decided when the route resumes, its promise never settling, so only a route that reads
        // `settled` answers; otherwise (as before any reply) decided a turn later, through the promise alone.
        return scenario.drawSettled === true
          ? { settled: outcome, outcome: new Promise<DrawOutcome>(() => undefined) }
          : { settled: null, outcome: new Promise<DrawOutcome>((resolve) => setImmediate(() => resolve(outcome))) };
      },
      likelyAdmits: () => scenario.likelyAdmits,
    },
    eligibility: {
      checkInto: (mc, backendOk, _context, waiter) => {
        calls.checks.push({ mc, backendOk });
        // Told a turn later at the earliest, as a Redis reply would be.
        (scenario.check ? scenario.check(mc, backendOk) : Promise.resolve(verdictFor(mc, !backendOk)))
          .then((verdict) => waiter.checked(verdict), (error: unknown) => waiter.checkFailed(error));
      },
      evaluate: async (mc) => verdictFor(mc, true),
      withdraw: (verdict) => {
        calls.withdrawn.push(verdict);
      },
    },
    metrics: {
      countVerdict: () => {
        calls.counted += 1;
      },
    },
  };
  return { calls, route: eligibilityRoute(deps) };
}

const request = (body: string): HttpRequest => ({
  method: 'POST', path: '/v1/eligibility', query: '', headers: { 'x-api-key': 'cek_x_y' }, params: [], body: Buffer.from(body), requestId: 'r1',
  peer: { address: () => '127.0.0.1' },
});

/** The route's answer as a promise: its continuation form driven as the adapter drives it (a throw fails it too). */
const ask = (route: Route, sent: HttpRequest): Promise<HttpResponse> => new Promise((resolve, reject) => {
  if (route.handle === undefined) throw new Error('the eligibility route answers in continuation form');
  route.handle(sent, { send: resolve, fail: reject });
});

/** The access line's members the route rendered (its parts, concatenated). */
const logText = (response: HttpResponse): string => (response.logParts ?? [])
  .map((part) => (typeof part === 'string' ? part : Buffer.from(part).toString('utf8'))).join('');

describe('eligibility route around its budget draw', () => {
  it('decides early when the draw will likely admit, and answers that verdict once the draw does', async () => {
    const { calls, route } = harness({ likelyAdmits: true, draw: decision(true) });
    const response = await ask(route, request('{"mc_number":"MC-42"}'));
    expect(response.status).toBe(200);
    expect(calls.checks).toEqual([{ mc: '42', backendOk: true }]);
    expect(calls.withdrawn).toEqual([]);
    expect(calls.counted).toBe(1);
    expect(logText(response)).toContain('"reasons":["carrier_not_found"]');
    expect(logText(response)).toContain('"recorded":true');
  });

  it('writes the access line\'s verdict members the same whether they repeat (one piece) or change (three)', async () => {
    // Templated verdicts, as the service gives them: the not-found template every unknown number shares, its rest as bytes.
    const templates = new VerdictTemplates();
    const check = async (mc: string) => toVerdict(templates.settleInput({
      lookup: NOT_FOUND, backendAvailable: true, maxDataAgeSeconds: 172_800, nowMs: NOW, onDoNotUseList: false, ruleset: RULESET, snapshot: SNAPSHOT,
    }, mc), mc, NOW, true);
    const { route } = harness({ likelyAdmits: true, draw: decision(true), check });
    // Repeats, changes, back again.
    for (const mc of ['7', '7', '7', '8', '7', '1234567', '1234567']) {
      const response = await ask(route, request(JSON.stringify({ mc_number: mc })));
      expect(JSON.parse(`{${logText(response).slice(1)}}`)).toEqual({
        key_id: 'k1', decision_id: expect.stringMatching(/^[0-9a-f-]{36}$/) as unknown, mc_number: mc, eligible: false, tier: null,
        reasons: ['carrier_not_found'], ruleset_version: 1, data_as_of: '2026-11-20T06:00:00Z', cache_hit: true, recorded: true,
      });
    }
  });

  it('reads a draw that settled before the check resumed without waiting on its promise, admitted or refused', async () => {
    const admitted = harness({ likelyAdmits: true, draw: decision(true), drawSettled: true });
    const response = await ask(admitted.route, request('{"mc_number":"42"}'));
    expect(response.status).toBe(200);
    expect(admitted.calls.withdrawn).toEqual([]);
    const refused = harness({ likelyAdmits: true, draw: decision(false), drawSettled: true });
    const error = await ask(refused.route, request('{"mc_number":"42"}')).then(() => null, (thrown: unknown) => thrown);
    expect((error as AppError).kind).toBe('rate_limited');
    expect(refused.calls.withdrawn).toHaveLength(1);
  });

  it('withdraws an early check the draw refuses, and answers 429', async () => {
    const { calls, route } = harness({ likelyAdmits: true, draw: decision(false) });
    const refused = await ask(route, request('{"mc_number":"42"}')).then(() => null, (error: unknown) => error);
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).kind).toBe('rate_limited');
    expect(calls.withdrawn.map((verdict) => verdict.mc_number)).toEqual(['42']);
    expect(calls.counted).toBe(0);
  });

  it('answers from the degraded path when the draw fell back to memory, withdrawing the early verdict', async () => {
    const { calls, route } = harness({ likelyAdmits: true, draw: decision(true, true) });
    const response = await ask(route, request('{"mc_number":"42"}'));
    expect(calls.checks).toEqual([{ mc: '42', backendOk: true }, { mc: '42', backendOk: false }]);
    expect(calls.withdrawn).toHaveLength(1);
    expect(logText(response)).toContain('"reasons":["backend_unavailable"]');
    expect(calls.counted).toBe(1);
  });

  it('checks after the draw when it is not likely to admit, and never early for a bad body (429 before 400)', async () => {
    const late = harness({ likelyAdmits: false, draw: decision(true) });
    await ask(late.route, request('{"mc_number":"42"}'));
    expect(late.calls.checks).toEqual([{ mc: '42', backendOk: true }]);
    const bad = harness({ likelyAdmits: true, draw: decision(false) });
    const error = await ask(bad.route, request('{"mc_number":')).then(() => null, (thrown: unknown) => thrown);
    expect((error as AppError).kind).toBe('rate_limited');
    expect(bad.calls.checks).toEqual([]);
  });
});

describe('an early check that fails', () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  beforeEach(() => {
    unhandled.length = 0;
    process.on('unhandledRejection', onUnhandled);
  });
  afterEach(() => {
    process.off('unhandledRejection', onUnhandled);
  });

  it('rejects the request (a 500 from the adapter) without an unhandled rejection while the draw is pending', async () => {
    const bug = new Error('bug in check');
    const { route } = harness({ likelyAdmits: true, draw: decision(true), check: () => Promise.reject(bug) });
    const outcome = await ask(route, request('{"mc_number":"42"}')).then(() => null, (error: unknown) => error);
    expect(outcome).toBe(bug);
    // Node reports unhandled rejections after the microtask queue drains: give it a few turns.
    for (let turn = 0; turn < 3; turn += 1) await new Promise((resolve) => setImmediate(resolve));
    expect(unhandled).toEqual([]);
  });
});
