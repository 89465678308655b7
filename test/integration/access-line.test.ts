// The access line the running service writes for an eligibility check (bytes written piece by piece
// of issue 10, src/log-bytes.ts): one valid JSON line per request whose fields say exactly what the response
// said, for a first check (its verdict's members written as text) and repeats (the same members as bytes).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { cleanCarrier, startTestApp, type TestApp } from '../helpers/harness.js';
import { logCollector } from '../helpers/log-collector.js';

let t: TestApp;
let key: string;
let keyId: string;
const destination = logCollector();

beforeAll(async () => {
  t = await startTestApp({}, { log: createLogger('info', 'api', destination) });
  await t.publishRules();
  await t.writeSnapshot([cleanCarrier('424242'), cleanCarrier('515151', { authority: { status: 'inactive', granted_on: '2015-03-01', revocation_pending_on: null, revoked_on: '2025-01-02' } })]);
  ({ key, id: keyId } = await t.createKey());
});

afterAll(async () => {
  await t.stop();
});

/** The access lines written so far for one request id (after the turn that wrote them has ended). */
async function accessLines(requestId: string): Promise<Array<Record<string, unknown>>> {
  await new Promise((resolve) => setImmediate(resolve));
  return destination.text().split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.msg === 'request' && line.request_id === requestId);
}

describe('the eligibility access line', () => {
  it('names the same verdict as the response, first check and repeats alike', async () => {
    for (const [mc, round] of [['424242', 1], ['424242', 2], ['424242', 3], ['515151', 1], ['999999', 1], ['999999', 2]] as const) {
      const requestId = `access-${mc}-${round}`;
      const response = await t.post('/v1/eligibility', { mc_number: `MC-${mc}` }, { 'x-api-key': key, 'x-request-id': requestId });
      expect(response.status).toBe(200);
      const verdict = await response.json() as Record<string, unknown>;
      const [line, ...more] = await accessLines(requestId);
      expect(more).toEqual([]);
      expect(line).toMatchObject({
        level: 30, service: 'carrier-eligibility', role: 'api', request_id: requestId, method: 'POST', path: '/v1/eligibility',
        status: 200, aborted: false, key_id: keyId, recorded: true, msg: 'request',
        decision_id: verdict.decision_id, mc_number: verdict.mc_number, eligible: verdict.eligible, tier: verdict.tier,
        reasons: verdict.reasons, ruleset_version: verdict.ruleset_version, data_as_of: verdict.data_as_of, cache_hit: verdict.cache_hit,
      });
      expect(typeof line?.duration_ms).toBe('number');
      expect(Number.isNaN(Date.parse(String(line?.time)))).toBe(false);
    }
  });

  it('writes a generated request id when the one sent breaks the rule, and the same id it echoes', async () => {
    const response = await t.post('/v1/eligibility', { mc_number: '424242' }, { 'x-api-key': key, 'x-request-id': 'bad "id"' });
    const echoed = response.headers.get('x-request-id') ?? '';
    expect(echoed).not.toBe('bad "id"');
    expect(await accessLines(echoed)).toHaveLength(1);
  });
});
