// A worker outlives a Redis restart: it logs, backs off and screens the next job once Redis is back. While
// Redis is down the batch endpoints answer 503 service_unavailable with Retry-After.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { cleanCarrier, startTestApp, waitFor, type TestApp } from '../helpers/harness.js';
import { PrivateRedis } from '../helpers/private-redis.js';
import { submit, waitTerminal } from './batch-helpers.js';

let redis: PrivateRedis;
let t: TestApp;

async function arrange(): Promise<string> {
  await t.publishRules();
  await t.writeSnapshot([cleanCarrier('600001')]);
  return (await t.createKey()).key;
}

beforeAll(async () => {
  redis = await PrivateRedis.start();
  // A command timeout for a starved CI core: the restart, not a slow reply, is what this suite is about.
  t = await startTestApp({ REDIS_URL: redis.url, BATCH_CLAIM_IDLE_MS: '500', REDIS_COMMAND_TIMEOUT_MS: '1000' });
});

afterAll(async () => {
  await t.stop();
  await redis.stop();
});

it('screens jobs before and after Redis is killed and restarted', async () => {
  const before = await arrange();
  const first = await submit(t, before, [{ mc: '600001' }]);
  expect((await waitTerminal(t, before, first.job_id)).status).toBe('completed');

  await redis.kill();
  // Batch is asynchronous: while Redis is down its endpoints answer 503 with Retry-After, not a fake result.
  for (const response of [
    await t.get(`/v1/batch/${first.job_id}`, { 'x-api-key': before }),
    await t.post('/v1/batch', { items: [{ mc: '600001' }] }, { 'x-api-key': before }),
    await t.post('/v1/batch', { items: [{ mc: '600001' }] }, { 'x-api-key': 'cek_aaaaaaaaaaaa_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' }),
  ]) {
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('5');
    expect((await response.json() as { code: string }).code).toBe('service_unavailable');
  }
  await new Promise((resolve) => setTimeout(resolve, 1000));
  await redis.launch();
  // The restarted Redis is empty (no persistence in tests): arrange again, then a new job must complete.
  const after = await arrange();
  await waitFor(() => t.post('/v1/batch', { items: [] }, { 'x-api-key': after }).then((response) => response.status), (status) => status === 422, 10_000);
  // The service has read the new snapshot once a single check answers with a verdict instead of a degraded one.
  // The probe's value is the verdict's gist, so a timeout says what the service still answered.
  await waitFor(() => t.post('/v1/eligibility', { mc_number: '600001' }, { 'x-api-key': after })
    .then(async (response) => {
      const verdict = await response.json() as { eligible?: boolean; degraded?: boolean; reasons?: { code: string }[] };
      return `${response.status} eligible=${verdict.eligible} degraded=${verdict.degraded} ${(verdict.reasons ?? []).map((reason) => reason.code).join(',')}`;
    }), (gist) => gist.includes('eligible=true'), 20_000);
  const second = await submit(t, after, [{ mc: '600001' }, { mc: '600002' }]);
  const done = await waitTerminal(t, after, second.job_id, 15_000);
  expect(done).toMatchObject({ status: 'completed', summary: { eligible: 1, not_found: 1 } });
});
