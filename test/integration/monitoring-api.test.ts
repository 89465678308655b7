// Monitoring end to end on the real service (uWS on a free port, real Redis, own prefix): watch lists, events
// for each trigger kind, Standard Webhooks delivery to a real receiver that verifies signatures with the
// standardwebhooks package, retries, 410, order per carrier, account isolation and the pull feed's cursor.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyDoNotUse } from '../../src/store/do-not-use.js';
import { seedSample } from '../../src/ingest/sample.js';
import { monitoringKeys, shardOf } from '../../src/monitoring/keys.js';
import { cleanCarrier, startTestApp, waitFor, type TestApp } from '../helpers/harness.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { deleteByPrefix } from '../../src/redis/delete-by-prefix.js';

const ENV = {
  WEBHOOK_ALLOW_PRIVATE: 'true', MONITORING_POLL_MS: '100', WEBHOOK_RETRY_BASE_MS: '50', WEBHOOK_TIMEOUT_MS: '2000',
  MONITORING_MAX_WATCHED: '40', LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
};

let t: TestApp;
let receiver: Receiver;
let keyA = '';
let keyB = '';
let eligibilityA = '';

const json = (response: Response) => response.json() as Promise<Record<string, any>>;
const as = (key: string) => ({ 'x-api-key': key });
const put = (path: string, key: string, body?: unknown) => fetch(`${t.baseUrl}${path}`, {
  method: 'PUT', headers: { ...as(key), 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
});
const del = (path: string, key: string) => fetch(`${t.baseUrl}${path}`, { method: 'DELETE', headers: as(key) });

async function baselined(mcs: string[]): Promise<void> {
  const mkeys = monitoringKeys(t.config.REDIS_PREFIX);
  await waitFor(async () => Promise.all(mcs.map((mc) => t.redis.hexists(mkeys.baseline(shardOf(mc)), mc))), (all) => all.every((one) => one === 1), 10_000);
}

async function dnu(op: 'set' | 'del', mc: string): Promise<void> {
  await applyDoNotUse(t.redis, t.keys, [{ op, mc, entry: op === 'set' ? JSON.stringify({ reason: 'fraud report', added_at: new Date().toISOString(), expires_at: null }) : '' }]);
}

async function feed(key: string, after?: string): Promise<Record<string, any>> {
  return json(await t.get(`/v1/events${after ? `?after=${encodeURIComponent(after)}` : ''}`, as(key)));
}

beforeAll(async () => {
  t = await startTestApp(ENV);
  receiver = await startReceiver();
  await t.publishRules();
  const version = await t.writeSnapshot([cleanCarrier('100001', { authority: { status: 'inactive', granted_on: '2015-03-01', revocation_pending_on: null, revoked_on: null } }), cleanCarrier('200015'), cleanCarrier('501'), cleanCarrier('502'), cleanCarrier('503')]);
  // The listing shows verdicts: wait until the service serves the snapshot (it polls every 100 ms).
  await waitFor(async () => t.app.parts.state.snapshot?.version, (served) => served === version, 5000);
  keyA = (await t.createKey({ account: 'acme', scopes: ['monitoring'] })).key;
  eligibilityA = (await t.createKey({ account: 'acme', scopes: ['eligibility'] })).key;
  keyB = (await t.createKey({ account: 'globex', scopes: ['monitoring'] })).key;
});

let restarted = false;
afterAll(async () => {
  await receiver?.close();
  if (!restarted) {
    await t?.stop();
  } else {
    await deleteByPrefix(t.redis, t.config.REDIS_PREFIX);
    t.redis.disconnect();
  }
});

describe('watch list', () => {
  it('needs the monitoring scope', async () => {
    expect((await t.get('/v1/watchlist', as(eligibilityA))).status).toBe(403);
    expect((await t.get('/v1/watchlist')).status).toBe(401);
  });

  it('adds, lists with the current verdict, removes, and validates like batch', async () => {
    expect((await put('/v1/watchlist/MC-000501', keyA, { ref: 'lane 7' })).status).toBe(201);
    expect((await put('/v1/watchlist/501', keyA)).status).toBe(200);
    const bulk = await t.post('/v1/watchlist', { items: [{ mc: '502' }, { mc: 'MC503', ref: 'x' }, { mc: '501' }] }, as(keyA));
    expect(await json(bulk)).toEqual({ added: 2, already_watched: 1, watched: 3 });
    const listed = await json(await t.get('/v1/watchlist?limit=2', as(keyA)));
    expect(listed.items.map((item: { mc: string }) => item.mc)).toEqual(['501', '502']);
    expect(listed.items[0]).toMatchObject({ ref: 'lane 7', verdict: { eligible: true, tier: 'preferred', reasons: [] } });
    const rest = await json(await t.get(`/v1/watchlist?after=${listed.next_cursor}`, as(keyA)));
    expect(rest).toMatchObject({ items: [{ mc: '503', ref: 'x' }], next_cursor: null, watched: 3 });
    expect((await del('/v1/watchlist/503', keyA)).status).toBe(204);
    expect((await del('/v1/watchlist/503', keyA)).status).toBe(404);

    const invalid = await t.post('/v1/watchlist', { items: [{ mc: '12' }, { mc: 'abc' }, 'x'] }, as(keyA));
    expect(invalid.status).toBe(422);
    expect((await json(invalid)).errors.map((error: { path: string }) => error.path)).toEqual(['items.1.mc', 'items.2']);
    expect((await json(await t.post('/v1/watchlist', { items: Array.from({ length: 5001 }, (_, i) => ({ mc: String(i + 1) })) }, as(keyA)))).code).toBe('roster_too_large');
    expect((await json(await t.post('/v1/watchlist', { items: [] }, as(keyA)))).code).toBe('roster_empty');
    const overLimit = await t.post('/v1/watchlist', { items: Array.from({ length: 39 }, (_, i) => ({ mc: String(9000 + i) })) }, as(keyA));
    expect(overLimit.status).toBe(422);
    expect((await json(overLimit)).limit).toBe(40);
    expect((await json(await t.get('/v1/watchlist', as(keyA)))).watched).toBe(2);
  });

  it('keeps accounts apart', async () => {
    expect((await json(await t.get('/v1/watchlist', as(keyB)))).items).toEqual([]);
    expect((await del('/v1/watchlist/501', keyB)).status).toBe(404);
    expect((await json(await t.get('/v1/watchlist', as(keyA)))).watched).toBe(2);
  });
});

describe('events and webhooks', () => {
  let endpointId = '';

  it('registers an endpoint (secret shown once) and refuses unsafe URLs', async () => {
    const created = await t.post('/v1/webhooks', { url: receiver.url }, as(keyA));
    expect(created.status).toBe(201);
    const body = await json(created);
    expect(body.secret).toMatch(/^whsec_/);
    receiver.secrets.push(body.secret);
    endpointId = body.id;
    const listed = await json(await t.get('/v1/webhooks', as(keyA)));
    expect(JSON.stringify(listed)).not.toContain('whsec_');
    expect((await t.get(`/v1/webhooks/${endpointId}`, as(keyB))).status).toBe(404);
    expect((await del(`/v1/webhooks/${endpointId}`, keyB)).status).toBe(404);
    expect((await t.post('/v1/webhooks', { url: 'ftp://example.com/x' }, as(keyA))).status).toBe(422);
  });

  it('a do-not-use change reaches the receiver signed, with a real decision record, and the pull feed', async () => {
    await baselined(['501', '502']);
    const before = await feed(keyA);
    await dnu('set', '501');
    const { value } = await waitFor(async () => receiver.accepted().filter((item) => item.body.mc === '501'), (list) => list.length >= 1, 10_000);
    const event = value[0]!.body as Record<string, any>;
    expect(value[0]!.id).toBe(event.id);
    expect(event).toMatchObject({
      type: 'verdict.changed', trigger: 'do_not_use', mc: '501', dot: '1000501',
      before: { eligible: true, tier: 'preferred', reasons: [] }, after: { eligible: false, tier: 'blocked', reasons: ['do_not_use'] },
      reasons_removed: [], ruleset_version: 1,
    });
    expect(event.reasons_added[0]).toMatchObject({ reason: 'do_not_use', evidence: { reason: 'do_not_use' } });
    const record = await t.get(`/v1/decisions/${event.decision_id}`, as(eligibilityA));
    expect(record.status).toBe(200);
    expect(await json(record)).toMatchObject({ account: 'acme', verdict: { eligible: false, reasons: ['do_not_use'] } });
    const pulled = await feed(keyA, before.next_cursor ?? undefined);
    expect(pulled.events.map((item: { id: string }) => item.id)).toContain(event.id);
    expect((await feed(keyB)).events).toEqual([]);
  });

  it('a snapshot flip from a real-layout ingest yields changes and at-risk events with the effective date', async () => {
    const sample = ['100001', '200015', '100002', '100004', '100005', '100006'];
    expect((await t.post('/v1/watchlist', { items: sample.map((mc) => ({ mc })) }, as(keyA))).status).toBe(200);
    await baselined(sample);
    await seedSample(t.redis, t.keys, { quiet: true });
    const { value } = await waitFor(async () => receiver.accepted().map((item) => item.body as Record<string, any>)
      .filter((body) => body.mc === '100001' || body.mc === '200015'), (list) => list.length >= 3, 15_000);
    const restored = value.find((body) => body.mc === '100001')!;
    expect(restored).toMatchObject({ type: 'verdict.changed', trigger: 'snapshot', after: { eligible: true, tier: 'preferred' } });
    expect(restored.reasons_removed.map((item: { reason: string }) => item.reason)).toEqual(['authority_not_active']);
    const risk = value.find((body) => body.type === 'carrier.at_risk')!;
    expect(risk).toMatchObject({ mc: '200015', after: { reasons: ['insurance_cancellation_pending'] } });
    expect(risk.effective_on).toBe(new Date(Date.now() + 10 * 86_400_000).toISOString().slice(0, 10));
  });

  it('delivers one carrier\'s events in order, even when responses are slow', async () => {
    receiver.respond = () => ({ status: 200, delayMs: Math.floor(Math.random() * 30) });
    for (let i = 0; i < 3; i++) {
      await dnu('set', '100002');
      await new Promise((resolve) => setTimeout(resolve, 250));
      await dnu('del', '100002');
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    // The detector sees the list as it is at each tick, so changes closer together than a tick may coalesce:
    // whatever the feed holds for the carrier must arrive in exactly that order, each a real flip.
    const ours = (items: Array<{ mc?: unknown; trigger?: unknown }>) => items.filter((item) => item.mc === '100002' && item.trigger === 'do_not_use');
    const { value: feedEvents } = await waitFor(async () => ours((await feed(keyA)).events), (list) => (list.at(-1) as any)?.after?.eligible === true, 10_000);
    const { value } = await waitFor(async () => receiver.accepted().filter((item) => ours([item.body]).length === 1), (list) => list.length >= feedEvents.length, 10_000);
    expect(feedEvents.length).toBeGreaterThanOrEqual(2);
    expect(value.map((item) => item.id)).toEqual(feedEvents.map((item: any) => item.id));
    expect(value.map((item) => (item.body as any).after.eligible)).toEqual(feedEvents.map((_: unknown, index: number) => index % 2 === 1));
    receiver.respond = () => ({ status: 200 });
  });

  it('retries a failing receiver with the same webhook-id until it recovers, and logs every attempt', async () => {
    receiver.respond = ({ attempt }) => (attempt <= 2 ? { status: 503, headers: { 'retry-after': '0' } } : { status: 200 });
    await dnu('set', '100004');
    const { value } = await waitFor(async () => receiver.received.filter((item) => item.body.mc === '100004' && (item.body as any).after.eligible === false),
      (list) => list.some((item) => item.status === 200), 10_000);
    expect(value.map((item) => item.status)).toEqual([503, 503, 200]);
    expect(new Set(value.map((item) => item.id)).size).toBe(1);
    const log = await json(await t.get(`/v1/webhooks/${endpointId}/deliveries`, as(keyA)));
    const attempts = log.items.filter((item: { event_id: string }) => item.event_id === value[0]!.id).map((item: { outcome: string }) => item.outcome);
    expect(attempts.sort()).toEqual(['delivered', 'failed', 'failed']);
    receiver.respond = () => ({ status: 200 });
  });

  it('replays one event on request, with the same webhook-id', async () => {
    const first = receiver.accepted()[0]!;
    const replay = await t.post(`/v1/webhooks/${endpointId}/replay`, { event_id: first.id }, as(keyA));
    expect(await json(replay)).toMatchObject({ queued: 1 });
    await waitFor(async () => receiver.accepted().filter((item) => item.id === first.id).length, (count) => count >= 2, 10_000);
  });

  it('rotation keeps the old secret valid next to the new one', async () => {
    const rotated = await json(await t.post(`/v1/webhooks/${endpointId}/rotate-secret`, {}, as(keyA)));
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secrets).toHaveLength(2);
    receiver.secrets.splice(0, receiver.secrets.length, rotated.secret);
    await dnu('set', '100006');
    const { value } = await waitFor(async () => receiver.received.filter((item) => item.body.mc === '100006').slice(-1), (list) => (list[0]?.body as any)?.after?.eligible === false, 10_000);
    expect(value[0]!.verified).toBe(true);
    expect(value[0]!.signature.split(' ')).toHaveLength(2);
  });

  it('410 Gone disables the endpoint', async () => {
    receiver.respond = () => ({ status: 410 });
    await dnu('set', '100005');
    await waitFor(async () => (await json(await t.get(`/v1/webhooks/${endpointId}`, as(keyA)))).status, (status) => status === 'disabled', 10_000);
    const endpoint = await json(await t.get(`/v1/webhooks/${endpointId}`, as(keyA)));
    expect(endpoint.disabled_reason).toBe('gone');
    receiver.respond = () => ({ status: 200 });
  });

  it('counts events, deliveries by outcome and their latency, and detector ticks on /metrics', async () => {
    const text = await (await t.get('/metrics')).text();
    const value = (series: string) => {
      const line = text.split('\n').find((row) => row.startsWith(`${series} `));
      return line === undefined ? NaN : Number(line.slice(series.length + 1));
    };
    expect(value('ce_monitoring_events_total{type="verdict.changed"}')).toBeGreaterThanOrEqual(5);
    expect(value('ce_monitoring_events_total{type="carrier.at_risk"}')).toBeGreaterThanOrEqual(1);
    expect(value('ce_monitoring_events_total{type="screening.degraded"}')).toBe(0);
    expect(value('ce_webhook_deliveries_total{outcome="delivered"}')).toBeGreaterThanOrEqual(5);
    // The two 503s of the retry test, and the 410 (an attempt not accepted, then the endpoint disabled).
    expect(value('ce_webhook_deliveries_total{outcome="retry"}')).toBeGreaterThanOrEqual(3);
    expect(value('ce_webhook_deliveries_total{outcome="disabled"}')).toBe(1);
    expect(value('ce_webhook_deliveries_total{outcome="failed"}')).toBe(0);
    expect(value('ce_webhook_delivery_duration_seconds_count')).toBeGreaterThanOrEqual(value('ce_webhook_deliveries_total{outcome="delivered"}'));
    expect(value('ce_monitoring_detector_tick_seconds_count')).toBeGreaterThan(0);
    expect(value('ce_webhook_oldest_undelivered_seconds')).toBeGreaterThanOrEqual(0);
  });

  it('the pull feed cursor survives a service restart', async () => {
    const page = await feed(keyA);
    const cursor = page.next_cursor as string;
    expect(cursor).toMatch(/^c1\./);
    await t.app.stop();
    restarted = true;
    const again = await startTestApp({ ...ENV, REDIS_PREFIX: t.config.REDIS_PREFIX });
    try {
      expect((await json(await again.get(`/v1/events?after=${cursor}`, as(keyA)))).events).toEqual([]);
      await dnu('set', '100002');
      const { value } = await waitFor(async () => json(await again.get(`/v1/events?after=${cursor}`, as(keyA))), (body) => body.events.length > 0, 10_000);
      expect(value.events[0]).toMatchObject({ mc: '100002', type: 'verdict.changed' });
      expect(page.events.map((item: { id: string }) => item.id)).not.toContain(value.events[0].id);
    } finally {
      await again.app.stop();
      again.redis.disconnect();
    }
  });
});
