// One snapshot and one rule set per job: every row is judged on what was in force when the job was accepted,
// even when an ingest or a rule publish lands mid-job; a pinned snapshot that is being removed yields `error`
// rows (data_stale), never a false "not found".
import { afterAll, beforeAll, expect, it } from 'vitest';
import { KeyAdmin } from '../../src/auth/key-store.js';
import { retiredKey } from '../../src/store/snapshot-writer.js';
import { cleanCarrier, startTestApp, waitFor, type TestApp } from '../helpers/harness.js';
import { jobStatus, report, submit, waitTerminal } from './batch-helpers.js';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});

afterAll(async () => {
  await t.stop();
});

/** A job of `rows` rows for MC 700001 whose key has spent its budget: it waits until `release()`. */
async function waitingJob(rows: number) {
  const { key, id } = await t.createKey({ rate_per_minute: 3 });
  for (let i = 0; i < 3; i++) await t.post('/v1/eligibility', { mc_number: '700001' }, { 'x-api-key': key });
  const job = await submit(t, key, Array.from({ length: rows }, () => ({ mc: '700001' })));
  await waitFor(() => jobStatus(t, key, job.job_id), (status) => status.status === 'running', 5000);
  const release = async () => {
    const admin = new KeyAdmin(t.redis, t.keys);
    const stored = await admin.get(id);
    if (stored) await admin.save({ ...stored, rate_per_minute: 1_000_000 });
  };
  return { key, job, release };
}

it('keeps the snapshot and rule set pinned at acceptance when new ones are published mid-job', async () => {
  const rulesV1 = await t.publishRules();
  const pinned = await t.writeSnapshot([cleanCarrier('700001')]);
  const { key, job, release } = await waitingJob(3);
  expect(await jobStatus(t, key, job.job_id)).toMatchObject({ snapshot_version: pinned, ruleset_version: rulesV1 });

  await t.writeSnapshot([cleanCarrier('700001', { oos_order: { since: '2024-01-01', reason: 'x' } })]);
  await t.publishRules();
  await release();
  const done = await waitTerminal(t, key, job.job_id, 10_000);
  expect(done.summary).toMatchObject({ eligible: 3, hard_stop: 0 });
  const { records } = await report(t, key, job.job_id);
  for (const record of records) expect(record.ruleset_version).toBe(String(rulesV1));
});

it('reports rows as error (data_stale) when the pinned snapshot is being removed, not as not_found', async () => {
  await t.publishRules();
  const pinned = await t.writeSnapshot([cleanCarrier('700001')]);
  const { key, job, release } = await waitingJob(2);
  await t.writeSnapshot([cleanCarrier('700001')]);
  // Ingest's grace period for the retired version is over: it may be half-removed by now.
  await t.redis.zadd(retiredKey(t.keys), Date.now(), pinned);
  await t.redis.unlink(t.keys.snapshotMeta(pinned));
  await release();
  const done = await waitTerminal(t, key, job.job_id, 15_000);
  expect(done.summary).toMatchObject({ error: 2, not_found: 0 });
  const { records } = await report(t, key, job.job_id);
  expect(records.map((record) => [record.outcome, record.eligible, record.reasons])).toEqual([['error', 'false', 'data_stale'], ['error', 'false', 'data_stale']]);
});

it('blocks rows whose MC number was put on the do-not-use list mid-job, like a single check would', async () => {
  const { addDnu } = await import('../../src/ingest/dnu.js');
  await t.publishRules();
  await t.writeSnapshot([cleanCarrier('700001')]);
  const { key, job, release } = await waitingJob(2);
  await addDnu(t.redis, t.keys, '700001', { reason: 'fraud report', added_at: new Date().toISOString(), expires_at: null });
  await release();
  const done = await waitTerminal(t, key, job.job_id, 10_000);
  expect(done.summary).toMatchObject({ hard_stop: 2, eligible: 0 });
  const { records } = await report(t, key, job.job_id);
  expect(records.map((record) => record.reasons)).toEqual(['do_not_use', 'do_not_use']);
  const single = await (await t.post('/v1/eligibility', { mc_number: '700001' }, { 'x-api-key': (await t.createKey()).key })).json();
  expect(single).toMatchObject({ tier: 'blocked', reasons: ['do_not_use'] });
});
