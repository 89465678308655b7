// Budget pacing: batch rows draw from the submitting key's per-minute budget, up to its batch share
// (1 − BATCH_BUDGET_HEADROOM); when that is spent the job waits (no row fails), and the key's single checks
// still get the headroom. Raising the key's budget lets the waiting job finish without a restart.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { KeyAdmin } from '../../src/auth/key-store.js';
import { cleanCarrier, startTestApp, waitFor, type TestApp } from '../helpers/harness.js';
import { del, jobStatus, report, submit, waitTerminal } from './batch-helpers.js';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ BATCH_BUDGET_HEADROOM: '0.2' });
  await t.publishRules();
  await t.writeSnapshot([cleanCarrier('300001')]);
});

afterAll(async () => {
  await t.stop();
});

async function singleCheck(key: string): Promise<Response> {
  return t.post('/v1/eligibility', { mc_number: '300001' }, { 'x-api-key': key });
}

it('waits when the batch share is spent, leaves single checks their headroom, and never fails a row', async () => {
  // 60 per minute: batch rows may use 48; 40 are spent by single checks first, so the job gets 8 rows now.
  const { key, id } = await t.createKey({ rate_per_minute: 60 });
  for (let i = 0; i < 40; i++) expect((await singleCheck(key)).status).toBe(200);
  const job = await submit(t, key, Array.from({ length: 30 }, (_, index) => ({ mc: '300001', ref: `r${index + 1}` })));

  await waitFor(() => jobStatus(t, key, job.job_id), (status) => status.processed === 8, 5000);
  // It stays there: the job waits instead of failing or over-drawing.
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const waiting = await jobStatus(t, key, job.job_id);
  expect(waiting).toMatchObject({ status: 'running', processed: 8, summary: { eligible: 8, error: 0 } });

  // The headroom is the single checks': 60 − 48 = 12 remain for them.
  const allowed = await singleCheck(key);
  expect(allowed.status).toBe(200);
  expect(allowed.headers.get('ratelimit')).toMatch(/r=11;/);

  // A raised budget (operators) is picked up by the waiting job within about a second.
  const admin = new KeyAdmin(t.redis, t.keys);
  const stored = await admin.get(id);
  if (!stored) throw new Error('key missing');
  await admin.save({ ...stored, rate_per_minute: 100_000 });
  const done = await waitTerminal(t, key, job.job_id, 10_000);
  expect(done).toMatchObject({ status: 'completed', processed: 30, summary: { eligible: 30, error: 0 } });
});

it('a cancelled waiting job reports its unscreened rows as not_screened (job_cancelled)', async () => {
  const { key } = await t.createKey({ rate_per_minute: 60 });
  for (let i = 0; i < 40; i++) expect((await singleCheck(key)).status).toBe(200);
  const job = await submit(t, key, Array.from({ length: 30 }, () => ({ mc: '300001' })));
  await waitFor(() => jobStatus(t, key, job.job_id), (status) => status.processed === 8, 5000);
  expect((await del(t, `/v1/batch/${job.job_id}`, key)).status).toBe(200);
  const { records } = await report(t, key, job.job_id);
  expect(records.filter((record) => record.outcome === 'eligible')).toHaveLength(8);
  expect(records.filter((record) => record.outcome === 'not_screened' && record.reasons === 'job_cancelled')).toHaveLength(22);
  expect(records.map((record) => record.row)).toEqual(Array.from({ length: 30 }, (_, index) => String(index + 1)));
});
