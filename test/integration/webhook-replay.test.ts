// Replays on the real service (uWS on a free port, real Redis, the monitoring worker, a real receiver that
// verifies signatures): a receiver that dedupes on webhook-id (200 the first time, 409 after) refuses a replay;
// the refused replay must back off on its own and never hold new events, be given up after the retry window,
// be dropped by `enable`; replay requests are deduplicated and capped.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyDoNotUse } from '../../src/store/do-not-use.js';
import { monitoringKeys, shardOf } from '../../src/monitoring/keys.js';
import { REPLAY_QUEUE_MAX } from '../../src/monitoring/webhook-store.js';
import { cleanCarrier, startTestApp, waitFor, type TestApp } from '../helpers/harness.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

let t: TestApp;
let receiver: Receiver;
let key = '';
let endpointId = '';
const mkeys = () => monitoringKeys(t.config.REDIS_PREFIX);
const as = { 'x-api-key': '' };
const json = (response: Response) => response.json() as Promise<Record<string, any>>;

async function dnu(mc: string): Promise<void> {
  await applyDoNotUse(t.redis, t.keys, [{ op: 'set', mc, entry: JSON.stringify({ reason: 'fraud report', added_at: new Date().toISOString(), expires_at: null }) }]);
}

/** The event id of the first accepted delivery for a carrier. */
async function deliveredFor(mc: string): Promise<string> {
  const { value } = await waitFor(async () => receiver.accepted().filter((item) => item.body.mc === mc), (list) => list.length >= 1, 10_000);
  return (value[0] as { id: string }).id;
}

const replay = (body: unknown) => t.post(`/v1/webhooks/${endpointId}/replay`, body, as);
const replayState = async () => t.redis.hmget(mkeys().webhookState('acme', endpointId), 'replay_attempt', 'replay_next_at', 'replay_first_failed_at');
const queued = () => t.redis.lrange(mkeys().webhookReplay('acme', endpointId), 0, -1);

beforeAll(async () => {
  t = await startTestApp({
    WEBHOOK_ALLOW_PRIVATE: 'true', MONITORING_POLL_MS: '100', WEBHOOK_RETRY_BASE_MS: '100', WEBHOOK_RETRY_WINDOW_SECONDS: '60',
    WEBHOOK_TIMEOUT_MS: '2000',
  });
  receiver = await startReceiver();
  // The dedupe style the docs suggest: the first delivery of a webhook-id is processed, a repeat is refused.
  receiver.respond = ({ attempt }) => ({ status: attempt === 1 ? 200 : 409 });
  await t.publishRules();
  const mcs = ['701', '702', '703', '704'];
  await t.writeSnapshot(mcs.map((mc) => cleanCarrier(mc)));
  key = (await t.createKey({ account: 'acme', scopes: ['monitoring'] })).key;
  as['x-api-key'] = key;
  expect((await t.post('/v1/watchlist', { items: mcs.map((mc) => ({ mc })) }, as)).status).toBe(200);
  await waitFor(async () => Promise.all(mcs.map((mc) => t.redis.hexists(mkeys().baseline(shardOf(mc)), mc))), (all) => all.every((one) => one === 1), 10_000);
  const created = await json(await t.post('/v1/webhooks', { url: receiver.url }, as));
  receiver.secrets.push(created.secret);
  endpointId = created.id;
});

afterAll(async () => {
  await receiver?.close();
  await t?.stop();
});

describe('a refused replay', () => {
  it('backs off on its own: the next new event still arrives', async () => {
    await dnu('701');
    const first = await deliveredFor('701');
    const answer = await replay({ event_id: first });
    expect(answer.status).toBe(202);
    expect(await json(answer)).toEqual({ queued: 1, already_queued: 0, replays_pending: 1 });
    await waitFor(async () => receiver.received.filter((item) => item.id === first && item.status === 409).length, (count) => count >= 1, 10_000);
    await dnu('702');
    await deliveredFor('702');
    // Still queued, backing off with its own attempt count; the event stream's backoff is untouched.
    expect(await queued()).toHaveLength(1);
    const [attempt] = await replayState();
    expect(Number(attempt)).toBeGreaterThanOrEqual(1);
    const detail = await json(await t.get(`/v1/webhooks/${endpointId}`, as));
    expect(detail.delivery).toMatchObject({ failing_attempts: 0, next_attempt_at: null });
    const log = await json(await t.get(`/v1/webhooks/${endpointId}/deliveries`, as));
    expect(log.items.find((item: { event_id: string; outcome: string }) => item.event_id === first && item.outcome === 'failed')).toMatchObject({ status: 409 });
  });

  it('is deduplicated: asking again queues nothing new', async () => {
    const [waiting] = await queued();
    const again = await replay({ event_id: (await json(await t.get('/v1/events', as))).events[0].id });
    expect(await json(again)).toMatchObject({ queued: 0, already_queued: 1, replays_pending: 1 });
    expect(await queued()).toEqual([waiting]);
  });

  it('is given up once the retry window is spent, like any delivery', async () => {
    const [streamId] = await queued();
    // The window (60 s) started long enough ago: the next attempt is the last.
    await t.redis.hset(mkeys().webhookState('acme', endpointId), 'replay_first_failed_at', Date.now() - 61_000, 'replay_next_at', 0);
    await waitFor(queued, (list) => list.length === 0, 10_000);
    // The delivery loop resets the replay state just after it empties the queue.
    await waitFor(replayState, (state) => state.join() === '0,0,0', 5_000);
    expect(await replayState()).toEqual(['0', '0', '0']);
    expect(await t.redis.sismember(mkeys().webhookReplayIds('acme', endpointId), streamId as string)).toBe(0);
    const log = await json(await t.get(`/v1/webhooks/${endpointId}/deliveries`, as));
    expect(log.items[0]).toMatchObject({ outcome: 'gave_up', status: 409 });
  });

  it('is dropped by enable, which clears every backoff', async () => {
    const second = await deliveredFor('702');
    await replay({ event_id: second });
    await waitFor(async () => Number((await replayState())[0]), (attempt) => attempt >= 1, 10_000);
    const enabled = await t.post(`/v1/webhooks/${endpointId}/enable`, {}, as);
    expect(enabled.status).toBe(200);
    expect(await queued()).toEqual([]);
    expect(await replayState()).toEqual(['0', '0', '0']);
    await dnu('703');
    await deliveredFor('703');
  });
});

describe('replay requests', () => {
  it('are refused whole when they would pass the queue cap', async () => {
    // Fill the queue to one short of the cap, and hold the worker off it (its head backs off for an hour).
    await t.redis.hset(mkeys().webhookState('acme', endpointId), 'replay_attempt', 1, 'replay_next_at', Date.now() + 3_600_000);
    const filler = Array.from({ length: REPLAY_QUEUE_MAX - 1 }, (_, index) => `1-${index}`);
    const list = mkeys().webhookReplay('acme', endpointId);
    for (let start = 0; start < filler.length; start += 1000) await t.redis.rpush(list, ...filler.slice(start, start + 1000));
    expect((await json(await t.get('/v1/events', as))).events.length).toBeGreaterThanOrEqual(2);
    const refused = await replay({ from: new Date(Date.now() - 3_600_000).toISOString() });
    expect(refused.status).toBe(409);
    expect(await json(refused)).toMatchObject({ code: 'replay_queue_full', limit: REPLAY_QUEUE_MAX, replays_queued: REPLAY_QUEUE_MAX - 1 });
    expect(await t.redis.llen(list)).toBe(REPLAY_QUEUE_MAX - 1);
    // One event still fits.
    const first = (await json(await t.get('/v1/events', as))).events[0].id as string;
    expect(await json(await replay({ event_id: first }))).toMatchObject({ queued: 1, replays_pending: REPLAY_QUEUE_MAX });
  });
});
