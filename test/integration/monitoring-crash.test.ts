// At least once across a crash: a worker process is SIGKILLed while a webhook request is in flight (the
// receiver holds it unanswered). Another worker takes the endpoint over when the lease lapses and delivers the
// same event again, with the same webhook-id, so the receiver can deduplicate.
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { monitoringKeys, shardOf } from '../../src/monitoring/keys.js';
import { applyDoNotUse } from '../../src/store/do-not-use.js';
import { startWorkerProcess } from '../helpers/worker-process.js';
import { cleanCarrier, startTestApp, waitFor, type TestApp } from '../helpers/harness.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

let t: TestApp;
let receiver: Receiver;
const workers: ChildProcess[] = [];

function startWorker(): Promise<ChildProcess> {
  return startWorkerProcess(t.config, {
    MONITORING_POLL_MS: '100', WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_TIMEOUT_MS: '1000', WEBHOOK_RETRY_BASE_MS: '50',
  }, workers);
}

beforeAll(async () => {
  t = await startTestApp({ ROLE: 'api', WEBHOOK_ALLOW_PRIVATE: 'true' });
  receiver = await startReceiver();
  await t.publishRules();
  await t.writeSnapshot([cleanCarrier('600001')]);
});

afterAll(async () => {
  for (const child of workers) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await receiver.close();
  await t.stop();
});

it('redelivers an in-flight event with the same webhook-id after the delivering worker is SIGKILLed', async () => {
  const victim = await startWorker();
  const { key } = await t.createKey({ account: 'acme', scopes: ['monitoring'] });
  const created = await (await t.post('/v1/webhooks', { url: receiver.url }, { 'x-api-key': key })).json() as { secret: string };
  receiver.secrets.push(created.secret);
  await fetch(`${t.baseUrl}/v1/watchlist/600001`, { method: 'PUT', headers: { 'x-api-key': key } });
  const mkeys = monitoringKeys(t.config.REDIS_PREFIX);
  await waitFor(() => t.redis.hexists(mkeys.baseline(shardOf('600001')), '600001'), (found) => found === 1, 10_000);
  // The first request is held unanswered until after the kill.
  receiver.respond = ({ attempt }) => (attempt === 1 ? { status: 200, delayMs: 8000 } : { status: 200 });
  await applyDoNotUse(t.redis, t.keys, [{ op: 'set', mc: '600001', entry: JSON.stringify({ reason: 'x', added_at: new Date().toISOString(), expires_at: null }) }]);
  await waitFor(async () => receiver.arrived.length, (count) => count === 1, 10_000);
  victim.kill('SIGKILL');
  await startWorker();
  const { value } = await waitFor(async () => receiver.arrived, (ids) => ids.length >= 2, 15_000);
  expect(value[1]).toBe(value[0]);
  await waitFor(async () => receiver.accepted().length, (count) => count >= 1, 10_000);
  expect(receiver.accepted()[0]?.body).toMatchObject({ mc: '600001', after: { reasons: ['do_not_use'] } });
});
