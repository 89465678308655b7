// The single check end to end: real uWS server on a free port, real Redis, random key prefix per suite.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countCommands } from '../../bench/child-stats.js';
import { decodeRecord, type RecordContext } from '../../src/decisions/record-codec.js';
import { BUCKET_MS } from '../../src/decisions/recorder.js';
import { WINDOW_MS } from '../../src/ratelimit/budget.js';
import { isCluster } from '../../src/redis/connection.js';
import { luaScripts } from '../../src/redis/scripts.js';
import { createLogger } from '../../src/log.js';
import { cleanCarrier, startTestApp, waitFor, type TestApp } from '../helpers/harness.js';
import { logCollector } from '../helpers/log-collector.js';

let t: TestApp;
let key: string;

beforeAll(async () => {
  t = await startTestApp();
  await t.publishRules();
  await t.writeSnapshot([
    cleanCarrier('123456'),
    cleanCarrier('222', { safety_rating: 'U' }),
    cleanCarrier('333', { safety_rating: null }),
  ], {}, { 777: ['1001', '1002'] });
  ({ key } = await t.createKey());
  await t.app.parts.state.poll();
});

afterAll(async () => {
  await t.stop();
});

/** Decision records in Redis decided since `sinceMs` (one bucket per second) whose context passes `wanted`. */
async function recordsWhere(wanted: (context: RecordContext) => boolean, sinceMs: number): Promise<number> {
  let found = 0;
  for (let second = Math.floor(sinceMs / BUCKET_MS); second <= Math.floor(Date.now() / BUCKET_MS); second += 1) {
    for (const [decisionId, raw] of Object.entries(await t.redis.hgetall(t.keys.decisionBucket(second)))) {
      if (wanted(decodeRecord(decisionId, raw).context)) found += 1;
    }
  }
  return found;
}

const recordsOfRequest = (requestId: string, sinceMs: number) => recordsWhere((context) => context.requestId === requestId, sinceMs);

/** `apiKey: null` sends no x-api-key header at all. */
const check = (mc: unknown, apiKey: string | null = key, extra: Record<string, string> = {}) =>
  t.post('/v1/eligibility', mc === undefined ? {} : { mc_number: mc }, apiKey === null ? extra : { 'x-api-key': apiKey, ...extra });

describe('POST /v1/eligibility verdicts', () => {
  it('answers an eligible verdict with every contract field', async () => {
    const response = await check('MC-123456');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('x-request-id')).toBeTruthy();
    expect(response.headers.get('ratelimit-policy')).toBe('"key";q=100000;w=60');
    expect(response.headers.get('ratelimit')).toMatch(/^"key";r=\d+;t=\d+$/);
    const body = await response.json() as Record<string, unknown>;
    expect(body).toMatchObject({
      eligible: true, found: true, tier: 'preferred', reasons: [], degraded: false, ruleset_version: expect.any(Number),
      mc_number: '123456', carrier: { dot_number: '1123456', legal_name: 'CARRIER 123456 LLC', dba_name: null },
    });
    expect(Object.keys(body).slice(0, 11)).toEqual([
      'eligible', 'found', 'tier', 'reasons', 'degraded', 'decision_id', 'ruleset_version', 'policy_version', 'data_as_of', 'evaluated_at', 'cache_hit',
    ]);
    expect(body.decision_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(body.evaluated_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(body.data_as_of).toMatch(/Z$/);
  });

  it('blocks a hard stop and lists the reason', async () => {
    const body = await (await check('222')).json();
    expect(body).toMatchObject({ eligible: false, found: true, tier: 'blocked', reasons: ['unsatisfactory_safety_rating'] });
  });

  it('answers 200 found:false for an unknown carrier', async () => {
    const response = await check('9999999');
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      eligible: false, found: false, tier: null, reasons: ['carrier_not_found'], degraded: false, carrier: null,
    });
  });

  it('flags an MC number that maps to several DOT records as ambiguous', async () => {
    expect(await (await check('MC777')).json()).toMatchObject({
      eligible: false, found: true, tier: 'conditional', reasons: ['ambiguous_mc_number'], carrier: null,
    });
  });

  it('serves the second check of a carrier from the cache, and says so', async () => {
    const first = await (await check('333')).json() as { cache_hit: boolean; decision_id: string };
    const second = await (await check('MC 333')).json() as { cache_hit: boolean; decision_id: string; tier: string };
    expect(first.cache_hit).toBe(false);
    expect(second.cache_hit).toBe(true);
    expect(second.tier).toBe('standard');
    expect(second.decision_id).not.toBe(first.decision_id);
  });

  it('caches unknown carriers too', async () => {
    expect((await (await check('8888888')).json()).cache_hit).toBe(false);
    expect((await (await check('8888888')).json()).cache_hit).toBe(true);
  });

  it('echoes a caller request id', async () => {
    const response = await check('123456', key, { 'x-request-id': 'load-42.a' });
    expect(response.headers.get('x-request-id')).toBe('load-42.a');
  });
});

describe('POST /v1/eligibility errors', () => {
  const problem = async (response: Response, status: number, code: string) => {
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    expect(response.headers.get('x-request-id')).toBeTruthy();
    const body = await response.json() as Record<string, unknown>;
    expect(body).toMatchObject({ status, code, type: expect.stringContaining(code), title: expect.any(String), detail: expect.any(String) });
    return body;
  };

  it('401s a missing, malformed, unknown, wrong-secret, inactive or expired key with one identical body', async () => {
    const wrongSecret = `${key.slice(0, -4)}AAAA`;
    const { key: inactive } = await t.createKey({ status: 'inactive' });
    const { key: expired } = await t.createKey({ expires_at: '2020-01-01T00:00:00.000Z' });
    const unknown = `cek_zzzzzzzzzzzz_${'a'.repeat(43)}`;
    const bodies = [];
    for (const presented of [null, 'not-a-key', unknown, wrongSecret, inactive, expired]) {
      const response = await check('123456', presented);
      expect(response.headers.get('www-authenticate')).toContain('x-api-key');
      const body = await problem(response, 401, 'unauthorized');
      delete body.instance;
      bodies.push(JSON.stringify(body));
    }
    expect(new Set(bodies).size).toBe(1);
  });

  it('403s a key without the eligibility scope', async () => {
    const { key: batchOnly } = await t.createKey({ scopes: ['batch'] });
    await problem(await check('123456', batchOnly), 403, 'forbidden');
  });

  it('checks the key before the body', async () => {
    await problem(await t.post('/v1/eligibility', '{oops', {}), 401, 'unauthorized');
  });

  it('400s a body that is not JSON', async () => {
    await problem(await t.post('/v1/eligibility', '{"mc_number":', { 'x-api-key': key }), 400, 'invalid_json');
  });

  it.each([
    [{}, 'mc_number'],
    [{ mc_number: 123456 }, 'mc_number'],
    [{ mc_number: 'MX123' }, 'mc_number'],
    [{ mc_number: '123456789' }, 'mc_number'],
    [{ mc_number: '' }, 'mc_number'],
    [[], '(body)'],
    ['"123"', '(body)'],
  ])('422s %j naming %s', async (body, path) => {
    const response = await t.post('/v1/eligibility', typeof body === 'string' ? body : JSON.stringify(body), { 'x-api-key': key });
    const problemBody = await problem(response, 422, 'validation_failed');
    expect((problemBody.errors as Array<{ path: string }>)[0]?.path).toBe(path);
  });

  it('ignores unknown fields', async () => {
    expect((await t.post('/v1/eligibility', { mc_number: '123456', extra: true }, { 'x-api-key': key })).status).toBe(200);
  });

  it('413s a body over 4 KiB', async () => {
    const response = await t.post('/v1/eligibility', { mc_number: '1', pad: 'x'.repeat(5000) }, { 'x-api-key': key });
    await problem(response, 413, 'payload_too_large');
  });

  it('404s an unknown route and 405s a wrong method with Allow', async () => {
    await problem(await t.get('/v1/nothing-here'), 404, 'route_not_found');
    const wrongMethod = await t.get('/v1/eligibility');
    expect(wrongMethod.headers.get('allow')).toBe('POST');
    await problem(wrongMethod, 405, 'method_not_allowed');
  });
});

describe('rate budget', () => {
  it('429s past the budget with Retry-After in whole seconds and RateLimit fields', async () => {
    const { key: small } = await t.createKey({ rate_per_minute: 3 });
    for (let i = 0; i < 3; i++) expect((await check('123456', small)).status).toBe(200);
    const limited = await check('123456', small);
    expect(limited.status).toBe(429);
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(limited.headers.get('ratelimit-policy')).toBe('"key";q=3;w=60');
    expect(limited.headers.get('ratelimit')).toBe(`"key";r=0;t=${retryAfter}`);
    expect((await limited.json()).code).toBe('rate_limited');
  });

  it('429 comes before body validation', async () => {
    const { key: small } = await t.createKey({ rate_per_minute: 1 });
    await check('123456', small);
    expect((await t.post('/v1/eligibility', '{bad', { 'x-api-key': small })).status).toBe(429);
  });

  it('a check answered early but refused by its draw leaves no decision record behind', async () => {
    const budget = 5;
    const { key: early, id } = await t.createKey({ rate_per_minute: budget });
    // One admitted check: this replica now knows the key has 4 points left, so its next check is started in the
    // same turn as its draw, its record written alongside (BudgetLimiter.likelyAdmits).
    expect((await check('123456', early)).status).toBe(200);
    // Meanwhile another replica spends those points (its draw, through the same script).
    await luaScripts.slidingWindowDraw(t.redis, { log: t.keys.rateLog(id), sum: t.keys.rateSum(id) }, budget, WINDOW_MS, 4, 'other-replica');
    // Commands are counted on standalone only (a Cluster client routes them through per-node connections).
    const take = isCluster(t.app.parts.redis) ? null : countCommands(t.app.parts.redis);
    const since = Date.now();
    const refused = await check('123456', early, { 'x-request-id': 'refused-early-1' });
    expect(refused.status).toBe(429);
    expect((await refused.json()).code).toBe('rate_limited');
    // The early record was written, then withdrawn (not awaited by the answer, so polled for).
    if (take !== null) expect(take()).toMatchObject({ evalsha: 1, hset: 1, hdel: 1 });
    const left = await waitFor(() => recordsOfRequest('refused-early-1', since), (found) => found === 0, 2000);
    expect(left.value).toBe(0);
    // The refusing draw left no room, so the next check of the key is not guessed for: one draw, no record.
    take?.();
    expect((await check('123456', early)).status).toBe(429);
    if (take !== null) {
      const sent = take();
      expect(sent.evalsha).toBe(1);
      expect(sent.hset ?? 0).toBe(0);
      expect(sent.hdel ?? 0).toBe(0);
    }
    // And a check the draw admits keeps its record as before.
    const admitted = await check('123456', key, { 'x-request-id': 'admitted-early-1' });
    expect(admitted.status).toBe(200);
    expect(await recordsOfRequest('admitted-early-1', since)).toBe(1);
  });

  it('admits exactly the budget when many requests race, across two replicas', async () => {
    const budget = 37;
    const { key: racing, id: racingId } = await t.createKey({ rate_per_minute: budget });
    const since = Date.now();
    // A generous command timeout: on a starved CI core a slow (not failed) Redis must not hand the decision to
    // the per-replica in-memory stand-in, which is only exact per replica.
    // Their warnings (a replica that lost Redis and let the stand-in decide says why) explain a wrong count.
    const logs = logCollector();
    const replica = () => startTestApp({ REDIS_PREFIX: t.config.REDIS_PREFIX, REDIS_COMMAND_TIMEOUT_MS: '5000' }, { log: createLogger('warn', 'test', logs) });
    const first = await replica();
    const second = await replica();
    const send = (baseUrl: string) => fetch(`${baseUrl}/v1/eligibility`, {
      method: 'POST', headers: { 'x-api-key': racing }, body: JSON.stringify({ mc_number: '123456' }),
    });
    try {
      // Warm, as replicas in service are: each has drawn from this key once, so its connection to the node that
      // holds the key's slot is open and the draw script loaded there before the race.
      for (const replica of [first, second]) {
        const warm = await send(replica.baseUrl);
        expect(warm.status).toBe(200);
        expect((await warm.json() as { degraded: boolean }).degraded, logs.text()).toBe(false);
      }
      const racers = 150;
      const statuses = (await Promise.all(Array.from({ length: racers }, (_, index) => send(index % 2 ? second.baseUrl : first.baseUrl))))
        .map((response) => response.status);
      expect(statuses.filter((status) => status === 200), logs.text()).toHaveLength(budget - 2);
      expect(statuses.filter((status) => status === 429)).toHaveLength(racers - (budget - 2));
      // One record per answered verdict: a check decided early and then refused has its record withdrawn.
      const records = await waitFor(() => recordsWhere((context) => context.keyId === racingId, since), (count) => count === budget, 3000);
      expect(records.value).toBe(budget);
    } finally {
      for (const replica of [first, second]) {
        await replica.app.stop();
        replica.redis.disconnect();
      }
    }
  });
});

describe('GET /metrics', () => {
  it('counts verdicts by tier, times answers by route, and reports Redis and data freshness', async () => {
    await check('123456');
    const response = await t.get('/metrics');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/plain');
    const text = await response.text();
    expect(text).toMatch(/ce_verdicts_total\{tier="preferred",degraded="false",cache_hit="(true|false)"\} [1-9]/);
    expect(text).toMatch(/ce_verdicts_total\{tier="none",degraded="false",cache_hit="false"\} [1-9]/);
    expect(text).toContain('ce_redis_up 1');
    expect(text).toMatch(/ce_ruleset_version [1-9]/);
    // The adapter's request durations, by route: the check above is counted under its route.
    expect(text).toContain('# TYPE ce_http_request_duration_seconds histogram');
    expect(text).toMatch(/^ce_http_request_duration_seconds_count\{method="POST",route="\/v1\/eligibility"\} [1-9]/m);
    expect(text).toMatch(/^ce_http_request_duration_seconds_bucket\{method="POST",route="\/v1\/eligibility",le="\+Inf"\} [1-9]/m);
    expect(text).not.toContain(key);
  });
});

describe('propagation', () => {
  it('serves a new snapshot version on every replica within 1 s of the pointer flip', async () => {
    const before = await (await check('4242')).json();
    expect(before.found).toBe(false);
    await t.writeSnapshot([cleanCarrier('123456'), cleanCarrier('4242')]);
    const { elapsedMs } = await waitFor(async () => (await (await check('4242')).json()).found as boolean, (found) => found, 1000);
    expect(elapsedMs).toBeLessThan(1000);
  });

  it('applies a do-not-use entry on every replica within 1 s, and lifts it on removal', async () => {
    const { addDnu, removeDnu } = await import('../../src/ingest/dnu.js');
    expect((await (await check('123456')).json()).eligible).toBe(true);
    await addDnu(t.redis, t.keys, '123456', { reason: 'double brokered a load', added_at: new Date().toISOString(), expires_at: null });
    const blocked = await waitFor(async () => (await check('123456')).json(), (body) => body.eligible === false, 1000);
    expect(blocked.value).toMatchObject({ tier: 'blocked', reasons: ['do_not_use'], found: true });
    expect(blocked.elapsedMs).toBeLessThan(1000);
    await removeDnu(t.redis, t.keys, '123456');
    await waitFor(async () => (await check('123456')).json(), (body) => body.eligible === true, 1000);
  });

  it('rejects a disabled key on every replica within 1 s, and accepts it again when enabled', async () => {
    const { key: doomed, id } = await t.createKey();
    expect((await check('123456', doomed)).status).toBe(200);
    const { KeyAdmin } = await import('../../src/auth/key-store.js');
    const admin = new KeyAdmin(t.redis, t.keys);
    await admin.setStatus(id, 'inactive');
    const disabled = await waitFor(async () => (await check('123456', doomed)).status, (status) => status === 401, 1000);
    expect(disabled.elapsedMs).toBeLessThan(1000);
    await admin.setStatus(id, 'active');
    await waitFor(async () => (await check('123456', doomed)).status, (status) => status === 200, 1000);
  });
});
