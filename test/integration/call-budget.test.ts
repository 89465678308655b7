// Every authenticated call draws from a budget and says so (RateLimit fields; 429 with Retry-After when spent),
// and bad requests get a 4xx problem rather than a 503 or a blocked event loop: on the real service (uWS on a
// free port, real Redis, own prefix).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/harness.js';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ ROLE: 'api', API_CALL_RATE_PER_MINUTE: '3', WEBHOOK_ALLOW_PRIVATE: 'true' });
});

afterAll(async () => {
  await t?.stop();
});

const call = (method: string, path: string, key: string, body?: unknown) => fetch(`${t.baseUrl}${path}`, {
  method, headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
});

describe('the calls budget', () => {
  it.each([
    ['GET', '/v1/decisions/00000000-0000-7000-8000-000000000000', ['eligibility']],
    ['GET', '/v1/batch/00000000-0000-7000-8000-000000000000', ['batch']],
    ['GET', '/v1/events', ['monitoring']],
    ['GET', '/v1/watchlist', ['monitoring']],
    ['GET', '/v1/webhooks', ['monitoring']],
    ['POST', '/v1/webhooks/ep_0000000000000000/replay', ['monitoring']],
  ] as const)('%s %s: RateLimit fields on every answer until the budget is spent, then 429', async (method, path, scopes) => {
    // A key whose own check rate is lower than API_CALL_RATE_PER_MINUTE (3) gets the latter.
    const { key } = await t.createKey({ scopes: [...scopes], rate_per_minute: 1 });
    const body = method === 'POST' ? { event_id: 'evt_x' } : undefined;
    const answers: Response[] = [];
    for (let index = 0; index < 4; index += 1) answers.push(await call(method, path, key, body));
    expect(answers.map((answer) => answer.status).at(-1)).toBe(429);
    expect(answers.slice(0, 3).every((answer) => answer.status !== 429)).toBe(true);
    const ok = answers.find((answer) => answer.status === 200);
    if (ok) {
      expect(ok.headers.get('ratelimit-policy')).toBe('"calls";q=3;w=60');
      expect(ok.headers.get('ratelimit')).toMatch(/^"calls";r=[0-2];t=\d+$/);
    }
    const refused = answers[3] as Response;
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get('ratelimit')).toMatch(/^"calls";r=0;t=\d+$/);
    expect(await refused.json()).toMatchObject({ code: 'rate_limited', status: 429 });
  });

  it('keeps a high-volume key at its own rate, and apart from its checks budget', async () => {
    const { key } = await t.createKey({ scopes: ['monitoring'], rate_per_minute: 50 });
    const answer = await call('GET', '/v1/watchlist', key);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('ratelimit-policy')).toBe('"calls";q=50;w=60');
    expect(answer.headers.get('ratelimit')).toMatch(/^"calls";r=49;t=\d+$/);
  });
});

describe('bad requests', () => {
  it('a malformed percent-encoding in a path is a 422 problem, not a 503', async () => {
    const { key } = await t.createKey({ scopes: ['monitoring'] });
    for (const method of ['PUT', 'DELETE']) {
      const answer = await call(method, '/v1/watchlist/%ZZ', key);
      expect(answer.status, method).toBe(422);
      expect(answer.headers.get('retry-after')).toBeNull();
      expect(answer.headers.get('content-type')).toBe('application/problem+json');
      expect(await answer.json()).toMatchObject({ code: 'validation_failed', errors: [{ path: 'mc' }] });
    }
  });

  it('a body nested a million arrays deep is refused as invalid JSON before it is parsed', async () => {
    const { key } = await t.createKey({ scopes: ['batch', 'monitoring'] });
    // 2 MB for the batch body's cap, 800 KB for the watch list's (1 MiB).
    for (const [path, depth] of [['/v1/batch', 1_000_000], ['/v1/watchlist', 400_000]] as const) {
      const deep = `${'['.repeat(depth)}${']'.repeat(depth)}`;
      const answer = await fetch(`${t.baseUrl}${path}`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: deep });
      expect(answer.status, path).toBe(400);
      expect(await answer.json()).toMatchObject({ code: 'invalid_json', detail: expect.stringContaining('32 levels') });
    }
    // Nesting inside strings is not nesting.
    const answer = await t.post('/v1/watchlist', { items: [{ mc: '501', ref: '[[[['.repeat(40) }] }, { 'x-api-key': key });
    expect(answer.status).toBe(200);
  });
});
