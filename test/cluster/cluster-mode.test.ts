// Runs only in the `cluster` project: proves the suite really talks to a Cluster, that the control keys share
// one slot (so the poll, the flip and the key/DNU transactions cannot hit CROSSSLOT) and that a snapshot's
// carrier buckets spread over every master.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isCluster } from '../../src/redis/connection.js';
import { redisKeys } from '../../src/store/keys.js';
import { cleanCarrier, startTestApp, type TestApp } from '../helpers/harness.js';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});

afterAll(async () => {
  await t.stop();
});

async function slot(key: string): Promise<number> {
  return Number(await t.redis.call('CLUSTER', 'KEYSLOT', key));
}

describe('on a 3-master Redis Cluster', () => {
  it('the service and the harness use the Cluster client', () => {
    expect(t.config.REDIS_MODE).toBe('cluster');
    expect(isCluster(t.redis)).toBe(true);
    expect(isCluster(t.app.parts.redis)).toBe(true);
  });

  it('puts every control key in one slot', async () => {
    const keys = redisKeys(t.config.REDIS_PREFIX);
    const control = [
      keys.snapshotCurrent, keys.snapshotMeta('v1'), keys.snapshotVersions, keys.snapshotRetired, keys.ingestLock,
      keys.rulesetSeq, keys.rulesetCurrent, keys.ruleset(7), keys.apiKey('abc'), keys.apiKeyIndex, keys.apiKeyEpoch,
      keys.doNotUse, keys.doNotUseLog, keys.doNotUseEpoch, keys.deploymentMark,
    ];
    const slots = new Set(await Promise.all(control.map(slot)));
    expect(slots.size).toBe(1);
    expect(await slot(keys.rateLog('k1'))).toBe(await slot(keys.rateSum('k1')));
  });

  it('spreads a snapshot over every master and serves it', async () => {
    const { key } = await t.createKey();
    await t.publishRules();
    const carriers = Array.from({ length: 300 }, (_, i) => cleanCarrier(String(100_000 + i)));
    const version = await t.writeSnapshot(carriers);
    if (!isCluster(t.redis)) throw new Error('not a cluster client');
    const masters = t.redis.nodes('master');
    expect(masters).toHaveLength(3);
    const perMaster = await Promise.all(masters.map(async (node) => {
      const [, found] = await node.scan('0', 'MATCH', `${t.config.REDIS_PREFIX}snapshot:${version}:c:*`, 'COUNT', 100_000);
      return found.length;
    }));
    for (const count of perMaster) expect(count).toBeGreaterThan(30);
    const response = await t.post('/v1/eligibility', { mc_number: '100123' }, { 'x-api-key': key });
    expect(await response.json()).toMatchObject({ eligible: true, degraded: false });
  });

  it('writes the decision records of concurrent checks and reads each back', async () => {
    const { key } = await t.createKey();
    const verdicts = await Promise.all(['100123', '100124', '100123', '999999'].map(async (mc, index) => {
      const response = await t.post('/v1/eligibility', { mc_number: mc, reference: `load "${index}" é` }, { 'x-api-key': key });
      return response.json();
    }));
    for (const [index, verdict] of verdicts.entries()) {
      expect(verdict.degraded).toBe(false);
      const read = await t.get(`/v1/decisions/${verdict.decision_id}`, { 'x-api-key': key });
      expect(read.status).toBe(200);
      const record = await read.json();
      expect(record.verdict).toEqual(verdict);
      expect(record.reference).toBe(`load "${index}" é`);
    }
  });
});
