// Fail closed on missing or doubtful shared state: no rule set, no snapshot, stale data, a missing required
// source. Each is a 200 degraded verdict naming why, and health says the same.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanCarrier, startTestApp, type TestApp } from '../helpers/harness.js';

let t: TestApp;
let key: string;

beforeEach(async () => {
  t = await startTestApp({ MAX_DATA_AGE_SECONDS: '3600' });
  ({ key } = await t.createKey());
});

afterEach(async () => {
  await t.stop();
});

async function verdict(): Promise<Record<string, unknown>> {
  await t.app.parts.state.poll();
  const response = await t.post('/v1/eligibility', { mc_number: '123456' }, { 'x-api-key': key });
  expect(response.status).toBe(200);
  return await response.json() as Record<string, unknown>;
}

const DEGRADED = { eligible: false, found: false, tier: null, degraded: true, carrier: null };

describe('fail closed on shared state', () => {
  it('with nothing published: ruleset_unavailable and data_stale', async () => {
    expect(await verdict()).toMatchObject({ ...DEGRADED, reasons: ['data_stale', 'ruleset_unavailable'], ruleset_version: null, data_as_of: null });
    const health = await (await t.get('/v1/health')).json();
    expect(health).toMatchObject({ status: 'degraded', redis: 'up', ruleset_version: null, data_fresh: false });
  });

  it('with a rule set but no snapshot: data_stale', async () => {
    const version = await t.publishRules();
    expect(await verdict()).toMatchObject({ ...DEGRADED, reasons: ['data_stale'], ruleset_version: version });
  });

  it('with a snapshot older than MAX_DATA_AGE_SECONDS: data_stale', async () => {
    await t.publishRules();
    const old = new Date(Date.now() - 3601_000).toISOString();
    await t.writeSnapshot([cleanCarrier('123456')], {
      data_as_of: old,
      sources: { census: { present: true, as_of: old, rows: 1 }, authority: { present: true, as_of: old, rows: 1 } },
    });
    expect(await verdict()).toMatchObject({ ...DEGRADED, reasons: ['data_stale'], data_as_of: old });
    const health = await (await t.get('/v1/health')).json();
    expect(health).toMatchObject({ status: 'degraded', data_fresh: false });
    expect(health.data_age_seconds).toBeGreaterThanOrEqual(3600);
  });

  it('with a required source missing from the snapshot: data_stale', async () => {
    await t.publishRules();
    const now = new Date().toISOString();
    await t.writeSnapshot([cleanCarrier('123456')], { sources: { census: { present: true, as_of: now, rows: 1 } } });
    expect(await verdict()).toMatchObject({ ...DEGRADED, reasons: ['data_stale'] });
    const health = await (await t.get('/v1/health')).json();
    expect(health.sources.authority).toMatchObject({ present: false, required: true, fresh: false });
  });

  it('recovers as soon as fresh data and rules are there', async () => {
    await t.publishRules();
    await t.writeSnapshot([cleanCarrier('123456')]);
    expect(await verdict()).toMatchObject({ eligible: true, degraded: false, tier: 'preferred' });
    const health = await (await t.get('/v1/health')).json();
    expect(health).toMatchObject({ status: 'ok', redis: 'up', data_fresh: true });
    expect(JSON.stringify(health)).not.toContain(t.config.REDIS_PREFIX);
    expect(JSON.stringify(health)).not.toContain('6379');
  });
});
