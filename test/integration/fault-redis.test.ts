// Fail closed against a Redis that really breaks: a private redis-server is killed (socket drops) and paused
// (SIGSTOP: the socket stays open and nothing answers). Every answer meanwhile must be a fast 200 degraded
// verdict; when Redis is back the service recovers by itself.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanCarrier, startTestApp, waitFor, type TestApp } from '../helpers/harness.js';
import { PrivateRedis } from '../helpers/private-redis.js';

let redis: PrivateRedis;
let t: TestApp;
let key: string;

async function seed(): Promise<void> {
  await t.publishRules();
  await t.writeSnapshot([cleanCarrier('123456'), cleanCarrier('654321')]);
}

async function timedCheck(mc: string): Promise<{ status: number; body: Record<string, unknown>; ms: number }> {
  const started = performance.now();
  const response = await t.post('/v1/eligibility', { mc_number: mc }, { 'x-api-key': key });
  const body = await response.json() as Record<string, unknown>;
  return { status: response.status, body, ms: performance.now() - started };
}

/** Fires checks (hot-cached and cold carriers) for `durationMs` and returns every answer. */
async function trafficFor(durationMs: number) {
  const answers = [];
  const until = Date.now() + durationMs;
  while (Date.now() < until) {
    answers.push(...await Promise.all([timedCheck('123456'), timedCheck('654321'), timedCheck(String(Math.floor(Math.random() * 1e6)))]));
  }
  return answers;
}

function expectAllDegraded(answers: Awaited<ReturnType<typeof trafficFor>>, maxMs: number) {
  expect(answers.length).toBeGreaterThan(10);
  for (const answer of answers) {
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ eligible: false, degraded: true, tier: null, found: false });
    expect(answer.body.reasons).toContain('backend_unavailable');
    expect(answer.ms).toBeLessThan(maxMs);
  }
  const sorted = answers.map((answer) => answer.ms).sort((a, b) => a - b);
  // "Within milliseconds": once the outage is detected, answers do not wait on Redis at all.
  expect(sorted[Math.floor(sorted.length / 2)]).toBeLessThan(50);
}

beforeAll(async () => {
  redis = await PrivateRedis.start();
  t = await startTestApp({ REDIS_URL: redis.url, REDIS_COMMAND_TIMEOUT_MS: '100' });
  await seed();
  ({ key } = await t.createKey());
  await t.app.parts.state.poll();
  const warm = await timedCheck('123456');
  expect(warm.body).toMatchObject({ eligible: true, degraded: false });
});

afterAll(async () => {
  await t.app.stop();
  t.redis.disconnect();
  await redis.stop();
});

describe('Redis killed', () => {
  it('answers every check with a fast degraded verdict, reports it in health, then recovers', async () => {
    await redis.kill();
    expectAllDegraded(await trafficFor(700), 500);

    const health = await (await t.get('/v1/health')).json();
    expect(health).toMatchObject({ status: 'degraded', redis: 'down' });

    await redis.launch();
    // A restarted Redis without persistence comes back empty; the operator (or a persistent Redis) restores it.
    await waitFor(async () => t.redis.ping().catch(() => 'down'), (pong) => pong === 'PONG', 5000);
    await seed();
    ({ key } = await t.createKey());
    const recovered = await waitFor(() => timedCheck('123456'), (answer) => answer.body.eligible === true, 5000);
    expect(recovered.value.body).toMatchObject({ degraded: false, tier: 'preferred' });
    expect((await (await t.get('/v1/health')).json()).redis).toBe('up');
  });
});

describe('Redis paused (SIGSTOP)', () => {
  it('answers every check with a degraded verdict within the command timeout, then recovers on SIGCONT', async () => {
    await waitFor(() => timedCheck('123456'), (answer) => answer.body.eligible === true, 5000);
    redis.pause();
    try {
      expectAllDegraded(await trafficFor(800), 500);
      expect((await (await t.get('/v1/health')).json())).toMatchObject({ status: 'degraded', redis: 'down' });
    } finally {
      redis.resume();
    }
    const recovered = await waitFor(() => timedCheck('123456'), (answer) => answer.body.eligible === true, 5000);
    expect(recovered.value.body.degraded).toBe(false);
  });
});

describe('budget while Redis is down', () => {
  it('an in-memory limiter stands in per replica: the budget still bites, with Retry-After', async () => {
    await waitFor(() => timedCheck('123456'), (answer) => answer.body.eligible === true, 5000);
    const { key: small } = await t.createKey({ rate_per_minute: 3 });
    // One check while Redis is up caches the key record, as steady traffic would.
    expect((await t.post('/v1/eligibility', { mc_number: '123456' }, { 'x-api-key': small })).status).toBe(200);
    await redis.kill();
    try {
      const statuses: number[] = [];
      let retryAfter: string | null = null;
      for (let i = 0; i < 5; i++) {
        const response = await t.post('/v1/eligibility', { mc_number: '123456' }, { 'x-api-key': small });
        statuses.push(response.status);
        if (response.status === 429) retryAfter = response.headers.get('retry-after');
        else expect(await response.json()).toMatchObject({ eligible: false, degraded: true });
      }
      expect(statuses).toEqual([200, 200, 200, 429, 429]);
      expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    } finally {
      await redis.launch();
    }
  });
});
