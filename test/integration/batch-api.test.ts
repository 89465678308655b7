// The batch contract at the HTTP edge: auth, validation, one active job per key, 404 sameness, cancel,
// deadline, slot repair after a crash, retention, and the chunk-completion script's idempotency.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batchGlobalKeys, batchKeys, WORKER_GROUP } from '../../src/batch/keys.js';
import { luaScripts } from '../../src/redis/scripts.js';
import { cleanCarrier, startTestApp, waitFor, type TestApp } from '../helpers/harness.js';
import { del, jobStatus, report, submit, waitTerminal } from './batch-helpers.js';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ WORKER_CONCURRENCY: '2' });
  await t.publishRules();
  await t.writeSnapshot([cleanCarrier('100001'), cleanCarrier('100002')]);
});

afterAll(async () => {
  await t.stop();
});

/** A key whose budget is spent, so its jobs stay running (rows wait for budget) until cancelled. */
async function stalledKey(): Promise<{ key: string; id: string }> {
  const created = await t.createKey({ rate_per_minute: 5 });
  for (let i = 0; i < 5; i++) {
    const response = await t.post('/v1/eligibility', { mc_number: '100001' }, { 'x-api-key': created.key });
    expect(response.status).toBe(200);
  }
  return created;
}

describe('POST /v1/batch', () => {
  it('accepts a roster: 202 with job_id, total, status, poll, report and a Location header', async () => {
    const { key } = await t.createKey();
    const response = await t.post('/v1/batch', { items: [{ mc: '100001', ref: 'a', extra: 1 }, { mc: 'MC-100002' }], note: 'ignored' }, { 'x-api-key': key });
    expect(response.status).toBe(202);
    const body = await response.json() as Record<string, string | number>;
    expect(Object.keys(body).sort()).toEqual(['job_id', 'poll', 'report', 'status', 'total']);
    expect(body).toMatchObject({ total: 2, status: 'queued', poll: `/v1/batch/${body.job_id}`, report: `/v1/batch/${body.job_id}/report` });
    expect(response.headers.get('location')).toBe(body.poll);
    const done = await waitTerminal(t, key, String(body.job_id));
    expect(done).toMatchObject({ status: 'completed', processed: 2, summary: { eligible: 2, review: 0, hard_stop: 0, not_found: 0, not_screened: 0, error: 0 } });
  });

  it('401 without or with a bad key, 403 without the batch scope (before looking at the body)', async () => {
    expect((await t.post('/v1/batch', 'not json')).status).toBe(401);
    expect((await t.post('/v1/batch', { items: [] }, { 'x-api-key': 'cek_aaaaaaaaaaaa_bad' })).status).toBe(401);
    const { key } = await t.createKey({ scopes: ['eligibility'] });
    const response = await t.post('/v1/batch', 'not json', { 'x-api-key': key });
    expect(response.status).toBe(403);
    expect((await response.json() as { code: string }).code).toBe('forbidden');
  });

  it('400 for a body that is not JSON, 413 above 2 MiB', async () => {
    const { key } = await t.createKey();
    expect((await t.post('/v1/batch', '{"items":', { 'x-api-key': key })).status).toBe(400);
    const huge = JSON.stringify({ items: [{ ref: 'x'.repeat(2 * 1024 * 1024) }] });
    const response = await t.post('/v1/batch', huge, { 'x-api-key': key });
    expect(response.status).toBe(413);
  });

  it('422 with the contract codes and the invalid rows named', async () => {
    const { key } = await t.createKey();
    const code = async (body: unknown) => {
      const response = await t.post('/v1/batch', body, { 'x-api-key': key });
      expect(response.status).toBe(422);
      return await response.json() as { code: string; errors?: { path: string }[] };
    };
    expect((await code({})).code).toBe('validation_failed');
    expect((await code({ items: 'x' })).code).toBe('validation_failed');
    expect((await code([])).code).toBe('validation_failed');
    expect((await code({ items: [] })).code).toBe('roster_empty');
    expect((await code({ items: Array.from({ length: 5001 }, () => ({})) })).code).toBe('roster_too_large');
    const rows = await code({ items: [{ mc: '1' }, { mc: 1 }, 7, { ref: 'r'.repeat(257) }] });
    expect(rows.code).toBe('validation_failed');
    expect(rows.errors?.map((error) => error.path)).toEqual(['items.1.mc', 'items.2', 'items.3.ref']);
    const many = await code({ items: Array.from({ length: 40 }, () => ({ dot: 5 })) });
    expect(many.errors).toHaveLength(20);
  });

  it('one active job per key: of two simultaneous submissions exactly one is accepted', async () => {
    const { key } = await stalledKey();
    const responses = await Promise.all([0, 1].map(() => t.post('/v1/batch', { items: [{ mc: '100001' }] }, { 'x-api-key': key })));
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([202, 409]);
    const accepted = responses.find((response) => response.status === 202);
    const rejected = responses.find((response) => response.status === 409);
    const acceptedBody = await accepted?.json() as { job_id: string };
    expect(await rejected?.json()).toMatchObject({ code: 'active_job_exists', active_job_id: acceptedBody.job_id });
    // Still 409 later, and the job stays running (waiting for budget) rather than failing rows.
    const again = await t.post('/v1/batch', { items: [{ mc: '100001' }] }, { 'x-api-key': key });
    expect(again.status).toBe(409);
    expect((await jobStatus(t, key, acceptedBody.job_id)).status).toMatch(/queued|running/);
    expect((await del(t, `/v1/batch/${acceptedBody.job_id}`, key)).status).toBe(200);
  });
});

describe('job endpoints', () => {
  it('answers unknown, malformed and foreign job ids with the same 404 body', async () => {
    const owner = await t.createKey();
    const other = await t.createKey();
    const job = await submit(t, owner.key, [{ mc: '100001' }]);
    await waitTerminal(t, owner.key, job.job_id);
    const bodies: unknown[] = [];
    for (const [id, key] of [[job.job_id, other.key], ['01890000-0000-7000-8000-000000000000', owner.key], ['nope', owner.key]] as const) {
      for (const path of [`/v1/batch/${id}`, `/v1/batch/${id}/report`]) {
        const response = await t.get(path, { 'x-api-key': key });
        expect(response.status).toBe(404);
        const { instance: _instance, ...body } = await response.json() as Record<string, unknown>;
        bodies.push(body);
      }
      const response = await del(t, `/v1/batch/${id}`, key);
      expect(response.status).toBe(404);
      const { instance: _instance, ...body } = await response.json() as Record<string, unknown>;
      bodies.push(body);
    }
    for (const body of bodies) expect(body).toEqual(bodies[0]);
    expect((await t.get(`/v1/batch/${job.job_id}`)).status).toBe(401);
    const noScope = await t.createKey({ scopes: ['eligibility'] });
    expect((await t.get(`/v1/batch/${job.job_id}/report`, { 'x-api-key': noScope.key })).status).toBe(403);
    expect((await del(t, `/v1/batch/${job.job_id}`, noScope.key)).status).toBe(403);
  });

  it('a running job: Retry-After on status, 409 job_not_finished on report; cancel ends it and frees the key', async () => {
    const { key } = await stalledKey();
    const job = await submit(t, key, [{ mc: '100001', ref: 'a' }, { ref: 'no mc' }, { mc: '100002' }]);
    const running = await t.get(`/v1/batch/${job.job_id}`, { 'x-api-key': key });
    expect(running.headers.get('retry-after')).toBe('1');
    const early = await t.get(`/v1/batch/${job.job_id}/report`, { 'x-api-key': key });
    expect(early.status).toBe(409);
    expect(early.headers.get('retry-after')).toBe('1');
    expect((await early.json() as { code: string }).code).toBe('job_not_finished');

    const cancelled = await del(t, `/v1/batch/${job.job_id}`, key);
    expect(cancelled.status).toBe(200);
    const body = await cancelled.json() as { status: string; processed: number; total: number; summary: Record<string, number>; finished_at: string };
    expect(body).toMatchObject({ status: 'cancelled', processed: 3, total: 3 });
    expect(body.finished_at).toBeTruthy();
    expect(Object.values(body.summary).reduce((a, b) => a + b, 0)).toBe(3);
    const again = await del(t, `/v1/batch/${job.job_id}`, key);
    expect(again.status).toBe(409);
    expect((await again.json() as { code: string }).code).toBe('job_already_finished');

    const { records } = await report(t, key, job.job_id);
    expect(records.map((record) => [record.row, record.outcome, record.reasons])).toEqual([
      ['1', 'not_screened', 'job_cancelled'], ['2', 'not_screened', expect.stringMatching(/missing_mc_number|job_cancelled/)], ['3', 'not_screened', 'job_cancelled'],
    ]);
    // The slot is free: the same key may submit again at once.
    const next = await t.post('/v1/batch', { items: [{ ref: 'x' }] }, { 'x-api-key': key });
    expect(next.status).toBe(202);
  });

  it('fails a job past its deadline, its unscreened rows not_screened, and frees the key', async () => {
    const { key, id } = await stalledKey();
    const job = await submit(t, key, [{ mc: '100001' }, { mc: '100002' }]);
    await t.redis.hset(batchKeys(t.config.REDIS_PREFIX, job.job_id).job, 'deadline_ms', String(Date.now() - 1));
    const failed = await waitTerminal(t, key, job.job_id);
    expect(failed).toMatchObject({ status: 'failed', processed: 2, summary: { not_screened: 2 } });
    const { records } = await report(t, key, job.job_id);
    expect(records.map((record) => record.reasons)).toEqual(['job_deadline_exceeded', 'job_deadline_exceeded']);
    expect(await t.redis.exists(batchGlobalKeys(t.config.REDIS_PREFIX).activeSlot(id))).toBe(0);
    expect((await t.post('/v1/batch', { items: [{ ref: 'x' }] }, { 'x-api-key': key })).status).toBe(202);
  });

  it('repairs a slot left behind by a crash: naming a finished job, or a job that no longer exists', async () => {
    const { key, id } = await t.createKey();
    const slot = batchGlobalKeys(t.config.REDIS_PREFIX).activeSlot(id);
    const first = await submit(t, key, [{ mc: '100001' }]);
    await waitTerminal(t, key, first.job_id);
    await t.redis.set(slot, first.job_id, 'PX', 60_000);
    const second = await submit(t, key, [{ mc: '100001' }]);
    await waitTerminal(t, key, second.job_id);
    await t.redis.set(slot, '01890000-0000-7000-8000-00000000dead', 'PX', 60_000);
    const third = await submit(t, key, [{ mc: '100001' }]);
    expect((await waitTerminal(t, key, third.job_id)).status).toBe('completed');
    // After completion the worker releases the slot itself.
    await waitFor(() => t.redis.exists(slot), (exists) => exists === 0, 5000);
  });

  it('keeps a finished job for BATCH_RETENTION_SECONDS, and the slot carries a TTL while active', async () => {
    const { key, id } = await stalledKey();
    const active = await submit(t, key, [{ mc: '100001' }]);
    const slotTtl = await t.redis.pttl(batchGlobalKeys(t.config.REDIS_PREFIX).activeSlot(id));
    expect(slotTtl).toBeGreaterThan(t.config.BATCH_JOB_DEADLINE_SECONDS * 1000);
    await del(t, `/v1/batch/${active.job_id}`, key);
    const keys = batchKeys(t.config.REDIS_PREFIX, active.job_id);
    const retention = t.config.BATCH_RETENTION_SECONDS * 1000;
    for (const name of [keys.job, keys.rows]) {
      const ttl = await t.redis.pttl(name);
      expect(ttl).toBeGreaterThan(retention - 60_000);
      expect(ttl).toBeLessThanOrEqual(retention);
    }
    expect(await t.redis.exists(keys.stream)).toBe(0);
  });

  it('records a chunk exactly once: a repeated completion only acknowledges', async () => {
    const { key } = await stalledKey();
    const job = await submit(t, key, [{ mc: '100001' }, { mc: '100002' }]);
    const keys = batchKeys(t.config.REDIS_PREFIX, job.job_id);
    const complete = () => luaScripts.batchCompleteChunk(t.redis, keys, {
      group: WORKER_GROUP, entryId: '0-1', chunkIndex: 0, block: 'line\r\n', rows: 1, counts: [1, 0, 0, 0, 0, 0],
      nowIso: new Date().toISOString(), retentionMs: 60_000,
    });
    expect(await complete()).toBe(1);
    expect(await complete()).toBe(0);
    const fields = await t.redis.hmget(keys.job, 'processed', 's:eligible');
    expect(fields).toEqual(['1', '1']);
    await del(t, `/v1/batch/${job.job_id}`, key);
    expect(await complete()).toBe(0);
  });
});
