// Screening completeness over HTTP: with the default rule set a snapshot missing a screening list gives degraded
// data_stale verdicts; an operator may publish a rule set that drops the requirement, and health then names the
// lists verdicts are not screened against.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RULE_SET } from '../../src/core/ruleset.js';
import { cleanCarrier, startTestApp, type TestApp } from '../helpers/harness.js';

let t: TestApp;
let key: string;
const now = () => new Date().toISOString();

beforeAll(async () => {
  // A loaded CI box can take longer than the 150 ms default for a Redis answer; this test is about data, not latency.
  t = await startTestApp({ REDIS_COMMAND_TIMEOUT_MS: '2000' });
  ({ key } = await t.createKey());
});
afterAll(async () => { await t.stop(); });

async function check() {
  await t.app.parts.state.poll();
  const verdict = await (await t.post('/v1/eligibility', { mc_number: '123456' }, { 'x-api-key': key })).json();
  const health = await (await t.get('/v1/health')).json();
  return { verdict, health };
}

describe('screening lists the rule set requires', () => {
  it('a snapshot without SAM: data_stale under the default rule set; health names what is not screened once a rule set drops it', async () => {
    const at = now();
    await t.writeSnapshot([cleanCarrier('123456')], {
      sources: {
        census: { present: true, as_of: at, rows: 1, as_of_from: 'content' }, authority: { present: true, as_of: at, rows: 1, as_of_from: 'flag' },
        insurance: { present: true, as_of: at, rows: 1 }, oos: { present: true, as_of: at, rows: 1 }, ofac_sdn: { present: true, as_of: at, rows: 1 },
        sam: { present: false, as_of: null, rows: 0 },
      },
    });
    await t.publishRules(DEFAULT_RULE_SET);
    let { verdict, health } = await check();
    expect(verdict).toMatchObject({ eligible: false, degraded: true, reasons: ['data_stale'] });
    expect(health).toMatchObject({ status: 'degraded', degraded_reasons: ['data_stale'] });
    expect(health.sources.sam).toMatchObject({ present: false, required: true });
    expect(health.sources.authority).toMatchObject({ present: true, as_of_from: 'flag' });
    expect(health.not_screened).not.toContain('sam');

    await t.publishRules({ ...DEFAULT_RULE_SET, sources: { ...DEFAULT_RULE_SET.sources, required: DEFAULT_RULE_SET.sources.required.filter((s) => s !== 'sam') } });
    ({ verdict, health } = await check());
    expect(verdict).toMatchObject({ eligible: true, degraded: false });
    expect(health.status).toBe('ok');
    expect(health.not_screened).toEqual(['insurance_history', 'revocations', 'authority_history', 'ofac_cons', 'sam', 'dnu']);
  });
});
