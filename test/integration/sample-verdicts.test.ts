// The bundled sample, ingested through the real ingest path, answers over HTTP exactly as docs/api.md and the demo
// promise: every listed MC number gets its documented tier and reasons.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_CARRIERS, seedSample } from '../../src/ingest/sample.js';
import { ensureRuleSet } from '../../src/store/rulesets.js';
import { startTestApp, type TestApp } from '../helpers/harness.js';

let t: TestApp;
let key: string;

beforeAll(async () => {
  t = await startTestApp();
  await seedSample(t.redis, t.keys, { quiet: true });
  await ensureRuleSet(t.redis, t.keys);
  ({ key } = await t.createKey());
  await t.app.parts.state.poll();
});

afterAll(async () => {
  await t.stop();
});

describe('sample carriers over HTTP', () => {
  it.each(DEMO_CARRIERS.map((carrier) => [carrier.mc, carrier] as const))('MC %s', async (mc, expected) => {
    const response = await t.post('/v1/eligibility', { mc_number: `MC-${mc}` }, { 'x-api-key': key });
    expect(response.status).toBe(200);
    const verdict = await response.json();
    expect(verdict).toMatchObject({ tier: expected.tier, reasons: expected.reasons, degraded: false, mc_number: mc });
    expect(verdict.eligible).toBe(expected.reasons.length === 0 && expected.tier !== null);
  });

  it('covers every reason a found carrier can get', async () => {
    const { reasonsOfKind } = await import('../../src/core/reasons.js');
    const { NOT_IN_DEMO } = await import('../../src/ingest/sample-carriers.js');
    const shown = new Set(DEMO_CARRIERS.flatMap((carrier) => carrier.reasons));
    for (const reason of [...reasonsOfKind('hard_stop'), ...reasonsOfKind('review')].filter((code) => !NOT_IN_DEMO.includes(code))) {
      expect(shown, reason).toContain(reason);
    }
  });

  it('reports the sample snapshot fresh in health', async () => {
    const health = await (await t.get('/v1/health')).json();
    expect(health).toMatchObject({ status: 'ok', data_fresh: true });
    expect(health.carrier_count).toBeGreaterThan(200);
    expect(health.sources.census).toMatchObject({ present: true, fresh: true });
  });
});
