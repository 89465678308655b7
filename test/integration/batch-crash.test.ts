// Exactly once across a crash: two worker processes share a job; one is SIGKILLed while it holds chunks
// (read from the stream, not yet recorded). The survivor claims them after BATCH_CLAIM_IDLE_MS, and the
// report still has every row exactly once, with a summary that adds up.
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { KeyAdmin } from '../../src/auth/key-store.js';
import { batchKeys, WORKER_GROUP } from '../../src/batch/keys.js';
import { startWorkerProcess } from '../helpers/worker-process.js';
import { cleanCarrier, startTestApp, waitFor, type TestApp } from '../helpers/harness.js';
import { jobStatus, report, submit, waitTerminal } from './batch-helpers.js';

let t: TestApp;
const workers: ChildProcess[] = [];

function startWorker(): Promise<ChildProcess> {
  return startWorkerProcess(t.config, { BATCH_CLAIM_IDLE_MS: '500', WORKER_CONCURRENCY: '4' }, workers);
}

beforeAll(async () => {
  t = await startTestApp({ ROLE: 'api' });
  await t.publishRules();
  await t.writeSnapshot([cleanCarrier('400001'), cleanCarrier('400002', { safety_rating: 'C' })]);
});

afterAll(async () => {
  for (const child of workers) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await t.stop();
});

it('loses and duplicates no row when a worker is SIGKILLed mid-job', async () => {
  const [victim, survivor] = await Promise.all([startWorker(), startWorker()]);
  if (!victim.pid || !survivor.pid) throw new Error('no pid');
  // 1000 per minute: the batch share (800) covers 10 chunks of 80, then both workers hold chunks waiting.
  const { key, id } = await t.createKey({ rate_per_minute: 1000 });
  const items = Array.from({ length: 2000 }, (_, index) => ({ mc: ['400001', '400002', '400003', ''][index % 4], ref: `r${index + 1}` }));
  const job = await submit(t, key, items);
  const { stream } = batchKeys(t.config.REDIS_PREFIX, job.job_id);

  type PendingSummary = [number, string | null, string | null, [string, string][] | null];
  const pendingOf = async (pid: number) => {
    const [, , , consumers] = await t.redis.xpending(stream, WORKER_GROUP) as PendingSummary;
    return Number(consumers?.find(([name]) => name.includes(`-${pid}-`))?.[1] ?? 0);
  };
  await waitFor(async () => (await jobStatus(t, key, job.job_id)).processed, (processed) => processed >= 800, 15_000);
  // The victim must die holding chunks. A count read while it runs can be stale by the time the kill lands (it
  // may record them in between), so it is frozen first (SIGSTOP: no more reads or acks) and the count read then
  // is the one it dies with; while it holds none, it is let go on and tried again.
  const { value: held } = await waitFor(async () => {
    victim.kill('SIGSTOP');
    const count = await pendingOf(victim.pid ?? 0);
    if (count === 0) victim.kill('SIGCONT');
    return count;
  }, (count) => count > 0, 15_000);
  victim.kill('SIGKILL');
  await new Promise((resolve) => victim.once('exit', resolve));

  // Let the rest through: the survivor must also take over the victim's pending chunks to finish.
  const admin = new KeyAdmin(t.redis, t.keys);
  const stored = await admin.get(id);
  if (!stored) throw new Error('key missing');
  await admin.save({ ...stored, rate_per_minute: 10_000_000 });
  const done = await waitTerminal(t, key, job.job_id, 20_000);
  expect(held).toBeGreaterThan(0);
  expect(done.status).toBe('completed');
  expect(done.processed).toBe(2000);
  expect(Object.values(done.summary).reduce((a, b) => a + b, 0)).toBe(2000);
  expect(done.summary).toMatchObject({ eligible: 500, review: 500, not_found: 500, not_screened: 500, error: 0 });

  const { records } = await report(t, key, job.job_id);
  expect(records.map((record) => Number(record.row))).toEqual(Array.from({ length: 2000 }, (_, index) => index + 1));
  expect(new Set(records.map((record) => record.decision_id).filter(Boolean)).size).toBe(1500);
  records.forEach((record, index) => expect(record.ref).toBe(`r${index + 1}`));
  survivor.kill('SIGTERM');
  expect(await new Promise((resolve) => survivor.once('exit', resolve))).toBe(0);
});
