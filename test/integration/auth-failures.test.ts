// Failed authentication on the real service (uWS on a free port, a private redis-server so its commands can be
// watched with MONITOR): an unknown key id and a known id with a wrong secret cost the same one key lookup,
// unauthenticated failures are limited per client address (429 without a lookup), and a 503 for an unreadable
// key names its cause in the log.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { logCollector } from '../helpers/log-collector.js';
import { PrivateRedis } from '../helpers/private-redis.js';
import { watchCommands, type CommandFeed } from '../helpers/command-feed.js';
import { startTestApp, type TestApp } from '../helpers/harness.js';

let redis: PrivateRedis;
let t: TestApp;
let feed: CommandFeed | undefined;
const destination = logCollector();
/** Every key-record read Redis executed (HGETALL of an api key hash), by key id. */
const lookups: string[] = [];

beforeAll(async () => {
  redis = await PrivateRedis.start();
  t = await startTestApp({ REDIS_URL: redis.url, ROLE: 'api', AUTH_FAILURES_PER_MINUTE: '6', TRUSTED_PROXY_HOPS: '1', LOG_LEVEL: 'info' }, {
    log: createLogger('info', 'test', destination),
  });
  feed = await watchCommands(redis.url, (args) => {
    if (args[0]?.toLowerCase() === 'hgetall' && /\}:key:[a-z0-9]{12}$/.test(args[1] ?? '')) lookups.push(args[1] as string);
  });
});

const unmonitor = () => {
  feed?.stop();
  feed = undefined;
};

afterAll(async () => {
  unmonitor();
  await t?.stop();
  await redis?.stop();
});

const settle = () => new Promise((resolve) => setTimeout(resolve, 150));
const batchStatus = (key: string, from: string) => fetch(`${t.baseUrl}/v1/batch/job_unknown`, { headers: { 'x-api-key': key, 'x-forwarded-for': from } });

/** How many key lookups one request cost. */
async function lookupsOf(request: () => Promise<Response>): Promise<{ status: number; lookups: number }> {
  await settle();
  const before = lookups.length;
  const response = await request();
  await settle();
  return { status: response.status, lookups: lookups.length - before };
}

describe('failed authentication', () => {
  it('costs one key lookup whether the key id exists or not', async () => {
    const { key, id } = await t.createKey({ scopes: ['batch'] });
    // Verified once, so the record is cached and its secret known: a wrong secret needs no lookup to be refused.
    expect((await batchStatus(key, '10.0.0.1')).status).toBe(404);
    expect((await lookupsOf(() => batchStatus(key, '10.0.0.1'))).lookups).toBe(0);
    const wrongSecret = await lookupsOf(() => batchStatus(`cek_${id}_${'A'.repeat(43)}`, '10.0.0.1'));
    const unknown = await lookupsOf(() => batchStatus(`cek_zzzzzzzzzzzz_${'A'.repeat(43)}`, '10.0.0.1'));
    const unknownAgain = await lookupsOf(() => batchStatus(`cek_zzzzzzzzzzzz_${'A'.repeat(43)}`, '10.0.0.1'));
    expect([wrongSecret, unknown, unknownAgain]).toEqual([{ status: 401, lookups: 1 }, { status: 401, lookups: 1 }, { status: 401, lookups: 1 }]);
    // The eligibility route's cached path too.
    const check = await lookupsOf(() => t.post('/v1/eligibility', { mc_number: '1' }, { 'x-api-key': `cek_${id}_${'B'.repeat(43)}`, 'x-forwarded-for': '10.0.0.1' }));
    expect(check).toEqual({ status: 401, lookups: 1 });
  });

  it('limits failures per client address: 429 with Retry-After and no lookup past the limit; a verified key still passes', async () => {
    const { key } = await t.createKey({ scopes: ['batch'] });
    expect((await batchStatus(key, '203.0.113.9, 10.0.0.2')).status).toBe(404);
    // From another client address (one trusted proxy: the last X-Forwarded-For entry) than the test above.
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 8; attempt += 1) statuses.push((await batchStatus('cek_badbadbadbad_x', '203.0.113.9, 10.0.0.2')).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 401, 429, 429]);
    const refused = await batchStatus(`cek_yyyyyyyyyyyy_${'A'.repeat(43)}`, '203.0.113.9, 10.0.0.2');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await refused.json()).toMatchObject({ code: 'rate_limited', status: 429 });
    expect((await lookupsOf(() => batchStatus(`cek_xxxxxxxxxxxx_${'A'.repeat(43)}`, '203.0.113.9, 10.0.0.2'))).lookups).toBe(0);
    expect((await batchStatus(key, '203.0.113.9, 10.0.0.2')).status).toBe(404);
    // Another client behind the same proxy is not limited.
    expect((await batchStatus(`cek_xxxxxxxxxxxx_${'A'.repeat(43)}`, '10.0.0.3')).status).toBe(401);
    expect(destination.text()).toContain('"why":"malformed"');
  });
});

describe('503', () => {
  it('names its cause in one log line when the key cannot be read', async () => {
    const { key } = await t.createKey({ scopes: ['batch'] });
    unmonitor();
    await redis.kill();
    try {
      const response = await fetch(`${t.baseUrl}/v1/batch/job_unknown`, { headers: { 'x-api-key': key } });
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('5');
      const lines = destination.text().split('\n').filter((line) => line.includes('api key lookup failed'));
      expect(lines).toHaveLength(1);
      expect(JSON.parse(lines[0] as string)).toMatchObject({ level: 40, err: { message: expect.any(String) } });
    } finally {
      await redis.launch();
    }
  });
});
