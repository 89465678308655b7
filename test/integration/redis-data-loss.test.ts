// A Redis that answers but has lost its data (FLUSHALL on a private redis-server under a running service, as
// after a primary restarted without persistence): valid keys get degraded verdicts, never 401; batch answers
// 503; one loud log line says Redis appears to have lost its data; and re-creating the data recovers.
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedis, type RedisClient } from '../../src/redis/connection.js';
import { LiveState } from '../../src/state/live-state.js';
import { cleanCarrier, startTestApp, waitFor, type TestApp } from '../helpers/harness.js';
import { PrivateRedis } from '../helpers/private-redis.js';

let redis: PrivateRedis;
let t: TestApp;
let admin: RedisClient;

/** A LiveState on the same Redis whose log lines are captured, to check what operators are told. */
const lines: Array<{ level: number; msg: string; problems?: string[] }> = [];
let watcher: LiveState;

const check = (key: string, mc = '100001') => t.post('/v1/eligibility', { mc_number: mc }, { 'x-api-key': key });

beforeAll(async () => {
  redis = await PrivateRedis.start();
  t = await startTestApp({ REDIS_URL: redis.url });
  admin = createRedis(redis.url, 'background');
  const sink = new Writable({ write(chunk: Buffer, _encoding, done) { lines.push(JSON.parse(chunk.toString()) as typeof lines[number]); done(); } });
  watcher = new LiveState(createRedis(redis.url, 'request-path'), t.keys, 50, pino({ level: 'info' }, sink));
});

afterAll(async () => {
  watcher.stop();
  await t.app.stop();
  t.redis.disconnect();
  admin.disconnect();
  await redis.stop();
});

describe('Redis that lost its data', () => {
  it('gives degraded verdicts (not 401) for cached and uncached valid keys, 503 for batch, and says so loudly', async () => {
    const used = await t.createKey();
    const unused = await t.createKey();
    await t.publishRules();
    await t.writeSnapshot([cleanCarrier('100001')]);
    await t.app.parts.state.poll();
    await watcher.start();
    expect(await (await check(used.key)).json()).toMatchObject({ eligible: true, degraded: false });
    expect(lines.some((line) => line.msg === 'replica state at start-up')).toBe(true);

    await admin.flushall();
    // Straight away (usually before any poll noticed): the uncached key's lookup sees the mark gone → not a 401.
    const first = await check(unused.key);
    expect(first.status).toBe(200);
    const firstBody = await first.json() as { reasons: string[] };
    expect(firstBody).toMatchObject({ eligible: false, degraded: true });
    expect(firstBody.reasons).toContain('backend_unavailable');

    await waitFor(() => Promise.resolve(t.app.parts.state.backend), (backend) => backend === 'data_missing', 3000);
    for (const key of [used.key, unused.key]) {
      const response = await check(key);
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ eligible: false, degraded: true, tier: null });
    }
    const batch = await t.post('/v1/batch', { items: [{ mc: '100001' }] }, { 'x-api-key': used.key });
    expect(batch.status).toBe(503);
    expect((await (await t.get('/v1/health')).json()).degraded_reasons).toContain('backend_unavailable');

    await waitFor(() => Promise.resolve(lines), (all) => all.some((line) => line.msg.includes('LOST ITS DATA')), 3000);
    const loud = lines.filter((line) => line.msg.includes('LOST ITS DATA'));
    expect(loud).toHaveLength(1);
    expect(loud[0]).toMatchObject({ level: 50, problems: expect.arrayContaining(['redis_data_missing']) });
  });

  it('recovers by itself once the deployment is set up again, and logs that once', async () => {
    const fresh = await t.createKey();
    await t.publishRules();
    await t.writeSnapshot([cleanCarrier('100001')]);
    await waitFor(() => check(fresh.key).then((response) => response.json() as Promise<Record<string, unknown>>), (body) => body.eligible === true, 3000);
    await waitFor(() => Promise.resolve(lines), (all) => all.some((line) => line.msg.startsWith('replica recovered')), 3000);
    expect(lines.filter((line) => line.msg.startsWith('replica recovered'))).toHaveLength(1);
  });

  it('says which state it is in when the replica degrades: no rule set, no snapshot', async () => {
    lines.length = 0;
    await admin.del(t.keys.rulesetCurrent);
    await waitFor(() => Promise.resolve(lines), (all) => all.some((line) => line.problems?.includes('no_ruleset')), 3000);
    const line = lines.find((entry) => entry.problems?.includes('no_ruleset'));
    expect(line).toMatchObject({ level: 40, problems: ['no_ruleset'] });
  });
});
