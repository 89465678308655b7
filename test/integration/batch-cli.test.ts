// `carrier-eligibility jobs list|show|cancel` as operators run it (a child process with the service's env).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { cleanCarrier, startTestApp, type TestApp } from '../helpers/harness.js';
import { jobStatus, submit, waitTerminal } from './batch-helpers.js';

let t: TestApp;

const cli = (...args: string[]) => runCli(t.config.REDIS_PREFIX, ...args);

beforeAll(async () => {
  t = await startTestApp();
  await t.publishRules();
  await t.writeSnapshot([cleanCarrier('500001')]);
});

afterAll(async () => {
  await t.stop();
});

it('lists, shows and cancels jobs; bad input exits non-zero with one line', async () => {
  const done = await t.createKey();
  const finished = await submit(t, done.key, [{ mc: '500001' }]);
  await waitTerminal(t, done.key, finished.job_id);
  // A key whose budget is spent keeps its job running until cancelled.
  const slow = await t.createKey({ rate_per_minute: 2 });
  for (let i = 0; i < 2; i++) await t.post('/v1/eligibility', { mc_number: '500001' }, { 'x-api-key': slow.key });
  const running = await submit(t, slow.key, [{ mc: '500001' }, { mc: '500001' }]);

  const [listed, active, shown] = await Promise.all([cli('jobs', 'list'), cli('jobs', 'list', '--active'), cli('jobs', 'show', finished.job_id)]);
  expect(listed.code).toBe(0);
  expect((JSON.parse(listed.stdout) as { job_id: string }[]).map((job) => job.job_id)).toEqual([running.job_id, finished.job_id]);
  expect((JSON.parse(active.stdout) as { job_id: string; key_id: string }[])).toEqual([expect.objectContaining({ job_id: running.job_id, key_id: slow.id })]);
  expect(JSON.parse(shown.stdout)).toMatchObject({ job_id: finished.job_id, key_id: done.id, status: 'completed', summary: { eligible: 1 } });

  const cancelled = await cli('jobs', 'cancel', running.job_id);
  expect(cancelled.code).toBe(0);
  expect(JSON.parse(cancelled.stdout)).toMatchObject({ status: 'cancelled', processed: 2 });
  expect((await jobStatus(t, slow.key, running.job_id)).status).toBe('cancelled');

  const failures = await Promise.all([['jobs', 'cancel', running.job_id], ['jobs', 'show', 'nope'], ['jobs', 'list', '--limit', '0']].map((args) => cli(...args)));
  for (const failed of failures) {
    expect(failed.code).not.toBe(0);
    expect(failed.stderr.trim().split('\n')).toHaveLength(1);
  }
});
