// Webhook delivery, in the worker role. Each endpoint is delivered by one worker at a time, holding a lease
// (a key with a TTL, renewed while it works): the lease plus the endpoint's cursor into the account's event
// stream give order per carrier and crash safety without a queue of their own. A worker SIGKILLed mid-delivery
// never advanced the cursor, so when its lease lapses another worker sends the same events again, with the
// same webhook-id (the event id): at least once, deduplicable by the receiver.
//
// Per round an endpoint takes up to BATCH events after its cursor; events of different carriers go out in
// parallel, events of one carrier one after another (a carrier's later event is never sent before its earlier
// one is accepted). The cursor moves to just before the first failure; events of other carriers already
// accepted past it are remembered (the `ahead` set) so a retry does not send them again. A failure backs the
// endpoint off exponentially with jitter (Retry-After honoured) for WEBHOOK_RETRY_WINDOW_SECONDS, then that
// event is given up (logged) and the endpoint moves on. 410 Gone disables the endpoint. Replays (explicit
// re-deliveries) go first, but a refused one backs off and is given up on its own, never holding new events.
import { randomBytes } from 'node:crypto';
import type { Logger } from '../log.js';
import type { RedisClient } from '../redis/connection.js';
import { luaScripts } from '../redis/scripts.js';
import type { EventStore, StoredEvent } from './event-store.js';
import type { MonitoringKeys } from './keys.js';
import type { DeliveryOutcome, MonitoringMetrics } from './metrics.js';
import type { SendResult, WebhookSender } from './sender.js';
import {
  NO_REPLAY_FAILURE, validSecrets, wantsEvent, type DeliveryLogEntry, type DeliveryState, type Endpoint, type ReplayState, type WebhookStore,
} from './webhook-store.js';

const BATCH = 256;
const MAX_BACKOFF_MS = 3600_000;
/** How long this worker leaves an endpoint alone after finding nothing to send (bounds idle polling). */
const IDLE_RECHECK_MS = 500;
/** An endpoint waiting out a backoff, disabled or deleted is looked at again after at most this long. */
const WAITING_RECHECK_MS = 2000;

export interface DelivererOptions {
  redis: RedisClient;
  mkeys: MonitoringKeys;
  store: WebhookStore;
  events: EventStore;
  sender: WebhookSender;
  log: Logger;
  retryWindowMs: number;
  retryBaseMs: number;
  leaseMs: number;
  pollMs: number;
  /** Endpoints one worker delivers at once. */
  concurrency: number;
  metrics?: MonitoringMetrics;
}

/** The metrics outcome of a delivery log entry. */
const OUTCOME: Readonly<Record<DeliveryLogEntry['outcome'], DeliveryOutcome>> = {
  delivered: 'delivered', replayed: 'delivered', failed: 'retry', gave_up: 'failed', disabled: 'disabled',
};

/** Exponential backoff with jitter (half to full of base·2^(attempt−1), capped), never sooner than Retry-After. */
export function backoffMs(attempt: number, baseMs: number, retryAfterMs: number | null, random = Math.random()): number {
  const ceiling = Math.min(MAX_BACKOFF_MS, baseMs * 2 ** Math.max(0, attempt - 1));
  const jittered = Math.round(ceiling / 2 + random * ceiling / 2);
  return Math.max(jittered, Math.min(retryAfterMs ?? 0, MAX_BACKOFF_MS));
}

const accepted = (result: SendResult) => result.status !== null && result.status >= 200 && result.status < 300;

export class WebhookDeliverer {
  private readonly token = randomBytes(8).toString('hex');
  private readonly active = new Map<string, Promise<void>>();
  /** Endpoint → earliest time this worker looks at it again. */
  private readonly recheckAt = new Map<string, number>();
  private running = false;
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> = Promise.resolve();

  constructor(private readonly options: DelivererOptions) {}

  start(): void {
    this.running = true;
    const loop = async () => {
      if (!this.running) return;
      this.ticking = this.tick().catch((error: unknown) => this.options.log.warn({ err: error }, 'webhook delivery round failed; retrying'));
      await this.ticking;
      if (this.running) this.timer = setTimeout(() => void loop(), this.options.pollMs);
    };
    void loop();
  }

  async stop(graceMs: number): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.allSettled([this.ticking, ...this.active.values()]), new Promise((resolve) => {
      timer = setTimeout(resolve, graceMs);
    })]);
    clearTimeout(timer);
  }

  /** Takes the lease of every endpoint it can (up to the concurrency) and delivers for it in the background. */
  async tick(): Promise<void> {
    const { store, redis, mkeys } = this.options;
    for (const { account, id } of await store.index()) {
      if (!this.running || this.active.size >= this.options.concurrency) return;
      const name = `${account}\t${id}`;
      if (this.active.has(name) || (this.recheckAt.get(name) ?? 0) > Date.now()) continue;
      const lease = mkeys.webhookLease(account, id);
      if ((await redis.set(lease, this.token, 'PX', this.options.leaseMs, 'NX')) !== 'OK') continue;
      const task = this.deliver(account, id).then((waitMs) => {
        this.recheckAt.set(name, Date.now() + waitMs);
      }, (error: unknown) => {
        this.recheckAt.set(name, Date.now() + WAITING_RECHECK_MS);
        this.options.log.warn({ err: error, endpoint: id }, 'webhook delivery failed; will retry');
      }).finally(async () => {
        this.active.delete(name);
        await luaScripts.leaseRelease(redis, lease, this.token).catch(() => false);
      });
      this.active.set(name, task);
    }
  }

  private async stillMine(account: string, id: string): Promise<boolean> {
    return luaScripts.leaseRenew(this.options.redis, this.options.mkeys.webhookLease(account, id), this.token, this.options.leaseMs);
  }

  /** Delivers while there is work; resolves with how long to leave the endpoint alone. */
  private async deliver(account: string, id: string): Promise<number> {
    // Renewed in the background too: one round may take longer than the lease (slow receivers, long lanes).
    const renew = setInterval(() => void this.stillMine(account, id).catch(() => false), Math.max(50, Math.floor(this.options.leaseMs / 3)));
    try {
      return await this.deliverWhileOwned(account, id);
    } finally {
      clearInterval(renew);
    }
  }

  private async deliverWhileOwned(account: string, id: string): Promise<number> {
    const { store, events, metrics } = this.options;
    const name = `${account}\t${id}`;
    while (this.running && await this.stillMine(account, id)) {
      const endpoint = await store.get(account, id);
      if (!endpoint || endpoint.status !== 'active') metrics?.backlogOf(name, null);
      if (!endpoint) {
        // Deleted (or unreadable): forget it only when the record is really gone.
        if (!await this.options.redis.hexists(this.options.mkeys.webhooks(account), id)) await store.remove(account, id);
        return WAITING_RECHECK_MS;
      }
      if (endpoint.status !== 'active') return WAITING_RECHECK_MS;
      const state = await store.state(account, id);
      if (state.nextAt > Date.now()) {
        metrics?.backlogSeen(name);
        return Math.min(state.nextAt - Date.now(), WAITING_RECHECK_MS);
      }
      if (!await this.replays(endpoint, state)) return 0;
      const batch = await events.after(account, state.cursor, BATCH);
      metrics?.backlogOf(name, batch[0] ? streamMs(batch[0].streamId) : null);
      if (batch.length === 0) return IDLE_RECHECK_MS;
      if (!await this.round(endpoint, state, batch)) return 0;
    }
    return 0;
  }

  /**
   * Explicitly requested re-deliveries (replay), oldest request first. A refused replay backs off on its own
   * (its own attempt count and next time, ReplayState) and is given up after the retry window like any event;
   * new events never wait behind it. False only when the endpoint answered 410 and is disabled.
   */
  private async replays(endpoint: Endpoint, state: DeliveryState): Promise<boolean> {
    const { store } = this.options;
    const { account, id } = endpoint;
    let replay = await store.replayState(account, id);
    if (replay.nextAt > Date.now()) return true;
    for (const streamId of await store.replayQueue(account, id, 100)) {
      const [entry] = await this.options.events.after(account, previousId(streamId), 1);
      if (entry && entry.streamId === streamId) {
        const result = await this.send(endpoint, entry);
        if (result.status === 410) return this.disable(endpoint, entry, result, state);
        if (!accepted(result)) {
          await this.failReplay(endpoint, replay, result, entry);
          return true;
        }
        await store.log(account, id, [this.logEntry(entry, replay.attempt + 1, result, 'replayed', null)]);
      }
      await store.dropReplay(account, id, streamId);
      if (replay.attempt > 0) {
        replay = NO_REPLAY_FAILURE;
        await store.saveReplayState(account, id, replay);
      }
    }
    return true;
  }

  /** A refused replay: back off, or give it up (and take it off the queue) once the retry window is spent. */
  private async failReplay(endpoint: Endpoint, replay: ReplayState, result: SendResult, entry: StoredEvent): Promise<void> {
    const { store, log } = this.options;
    const { account, id } = endpoint;
    const now = Date.now();
    const firstFailedAt = replay.firstFailedAt || now;
    const attempt = replay.attempt + 1;
    if (now - firstFailedAt >= this.options.retryWindowMs) {
      await store.log(account, id, [this.logEntry(entry, attempt, result, 'gave_up', null)]);
      await store.dropReplay(account, id, entry.streamId);
      await store.saveReplayState(account, id, NO_REPLAY_FAILURE);
      log.warn({ endpoint: id, event_id: entry.event.id, status: result.status }, 'webhook replay given up after the retry window');
      return;
    }
    const nextAt = now + backoffMs(attempt, this.options.retryBaseMs, result.retryAfterMs);
    await store.log(account, id, [this.logEntry(entry, attempt, result, 'failed', new Date(nextAt).toISOString())]);
    await store.saveReplayState(account, id, { attempt, nextAt, firstFailedAt });
  }

  /** One round over a batch; true when the endpoint may go straight on to the next batch. */
  private async round(endpoint: Endpoint, state: DeliveryState, batch: StoredEvent[]): Promise<boolean> {
    const { redis, mkeys, store } = this.options;
    const aheadKey = mkeys.webhookAhead(endpoint.account, endpoint.id);
    const ahead = new Set(await redis.smembers(aheadKey));
    const results = new Map<string, SendResult>();
    const lanes = new Map<string, StoredEvent[]>();
    for (const entry of batch) {
      if (!wantsEvent(endpoint, entry.event.type) || ahead.has(entry.event.id)) continue;
      const lane = entry.event.mc ?? '*';
      const queue = lanes.get(lane);
      if (queue) queue.push(entry);
      else lanes.set(lane, [entry]);
    }
    await Promise.all([...lanes.values()].map(async (lane) => {
      for (const entry of lane) {
        const result = await this.send(endpoint, entry);
        results.set(entry.streamId, result);
        if (!accepted(result)) return;
      }
    }));
    const logEntries: DeliveryLogEntry[] = [];
    let cursor = state.cursor;
    let firstFailure: { entry: StoredEvent; result: SendResult } | null = null;
    const aheadAdd: string[] = [];
    let gone: { entry: StoredEvent; result: SendResult } | null = null;
    for (const entry of batch) {
      const result = results.get(entry.streamId);
      const handled = result === undefined ? (!wantsEvent(endpoint, entry.event.type) || ahead.has(entry.event.id)) : accepted(result);
      if (result) {
        const attempt = firstFailure === null && !accepted(result) ? state.attempt + 1 : 1;
        logEntries.push(this.logEntry(entry, attempt, result, accepted(result) ? 'delivered' : 'failed', null));
        if (result.status === 410 && !gone) gone = { entry, result };
      }
      if (handled && firstFailure === null) cursor = entry.streamId;
      else if (handled && result) aheadAdd.push(entry.event.id);
      else if (!handled && result && firstFailure === null) firstFailure = { entry, result };
      else if (!handled && firstFailure === null) break;
    }
    await store.log(endpoint.account, endpoint.id, logEntries.reverse());
    if (aheadAdd.length > 0) await redis.sadd(aheadKey, ...aheadAdd);
    const passed = batch.filter((entry) => compareIds(entry.streamId, cursor) <= 0).map((entry) => entry.event.id);
    if (passed.length > 0 && ahead.size > 0) await redis.srem(aheadKey, ...passed);
    if (gone) {
      await store.saveState(endpoint.account, endpoint.id, { ...state, cursor });
      return this.disable(endpoint, gone.entry, gone.result, { ...state, cursor });
    }
    if (firstFailure) {
      await this.fail(endpoint, { ...state, cursor: cursor === state.cursor ? state.cursor : cursor, attempt: cursor === state.cursor ? state.attempt : 0, firstFailedAt: cursor === state.cursor ? state.firstFailedAt : 0 }, firstFailure.result, null, firstFailure.entry);
      return false;
    }
    await store.saveState(endpoint.account, endpoint.id, { cursor, attempt: 0, nextAt: 0, firstFailedAt: 0 });
    return true;
  }

  /** Records a failed attempt: back off, or give the head event up once the retry window is spent. */
  private async fail(endpoint: Endpoint, state: DeliveryState, result: SendResult, logEntry: DeliveryLogEntry | null, head?: StoredEvent): Promise<void> {
    const { store, log } = this.options;
    const now = Date.now();
    const firstFailedAt = state.firstFailedAt || now;
    const attempt = state.attempt + 1;
    if (head && now - firstFailedAt >= this.options.retryWindowMs) {
      await store.log(endpoint.account, endpoint.id, [this.logEntry(head, attempt, result, 'gave_up', null)]);
      await store.saveState(endpoint.account, endpoint.id, { cursor: head.streamId, attempt: 0, nextAt: 0, firstFailedAt: 0 });
      log.warn({ endpoint: endpoint.id, event_id: head.event.id }, 'webhook event given up after the retry window');
      return;
    }
    const nextAt = now + backoffMs(attempt, this.options.retryBaseMs, result.retryAfterMs);
    if (logEntry) await store.log(endpoint.account, endpoint.id, [{ ...logEntry, next_attempt_at: new Date(nextAt).toISOString() }]);
    await store.saveState(endpoint.account, endpoint.id, { cursor: state.cursor, attempt, nextAt, firstFailedAt });
  }

  private async disable(endpoint: Endpoint, entry: StoredEvent, result: SendResult, state: DeliveryState): Promise<false> {
    const { store, log } = this.options;
    await store.setStatus(endpoint, 'disabled', 'gone');
    await store.log(endpoint.account, endpoint.id, [this.logEntry(entry, state.attempt + 1, result, 'disabled', null)]);
    log.warn({ endpoint: endpoint.id, account: endpoint.account }, 'webhook endpoint answered 410 Gone; disabled');
    return false;
  }

  private async send(endpoint: Endpoint, entry: StoredEvent): Promise<SendResult> {
    const result = await this.options.sender.send(endpoint.url, { id: entry.event.id, body: JSON.stringify(entry.event), secrets: validSecrets(endpoint, Date.now()) });
    this.options.metrics?.attemptTook(result.durationMs);
    return result;
  }

  /** Every attempt, give-up and disable makes exactly one log entry, so the outcome counters follow the log. */
  private logEntry(entry: StoredEvent, attempt: number, result: SendResult, outcome: DeliveryLogEntry['outcome'], nextAt: string | null): DeliveryLogEntry {
    this.options.metrics?.delivery(OUTCOME[outcome]);
    return {
      event_id: entry.event.id, type: entry.event.type, mc: entry.event.mc, attempt, at: new Date().toISOString(), outcome,
      status: result.status, duration_ms: result.durationMs, error: result.error, next_attempt_at: nextAt,
    };
  }
}

/** Orders two stream ids. */
export function compareIds(a: string, b: string): number {
  const [am = 0, as = 0] = a.split('-').map(Number);
  const [bm = 0, bs = 0] = b.split('-').map(Number);
  return am === bm ? as - bs : am - bm;
}

/** The time part (ms) of a stream id: when the event was stored. */
function streamMs(id: string): number {
  return Number(id.split('-')[0] ?? 0);
}

/** The stream id just before `id`, so an exclusive range starting there includes `id`. */
function previousId(id: string): string {
  const [ms = 0, seq = 0] = id.split('-').map(Number);
  return seq > 0 ? `${ms}-${seq - 1}` : `${Math.max(0, ms - 1)}-${Number.MAX_SAFE_INTEGER}`;
}
