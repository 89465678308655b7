// Webhook endpoints per account (one hash in the account's slot), their delivery state, log and replay queue.
// Secrets are `whsec_` + base64 of 32 random bytes (the Standard Webhooks form); they must be kept in Redis in
// the clear because every delivery is signed with them, and are shown to the caller only when created.
// Rotation adds a new secret and keeps the previous one valid for ROTATION_OVERLAP_MS: deliveries carry a
// signature per valid secret, so a receiver can switch over at its own pace.
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { RedisClient } from '../redis/connection.js';
import { luaScripts } from '../redis/scripts.js';
import { EVENT_TYPES, type EventType } from './events-model.js';
import type { MonitoringKeys } from './keys.js';

export const ROTATION_OVERLAP_MS = 24 * 3600_000;
export const MAX_ENDPOINTS_PER_ACCOUNT = 20;
export const DELIVERY_LOG_MAX = 1000;
/** Replays one endpoint may have queued at once (a replay request that would pass it is refused whole). */
export const REPLAY_QUEUE_MAX = 10_000;

const secretSchema = z.object({ secret: z.string().startsWith('whsec_'), created_at: z.string(), expires_at: z.string().nullable() });

export const endpointSchema = z.object({
  id: z.string(),
  account: z.string(),
  url: z.string(),
  event_types: z.array(z.enum(EVENT_TYPES)),
  description: z.string().nullable(),
  status: z.enum(['active', 'disabled']),
  disabled_reason: z.string().nullable(),
  created_at: z.string(),
  secrets: z.array(secretSchema).min(1),
});

export type Endpoint = z.infer<typeof endpointSchema>;

/** What the API and CLI show: never a secret. */
export function endpointView(endpoint: Endpoint) {
  const { secrets, account: _account, ...rest } = endpoint;
  return { ...rest, secrets: secrets.map((secret) => ({ created_at: secret.created_at, expires_at: secret.expires_at })) };
}

export function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

export function validSecrets(endpoint: Endpoint, nowMs: number): string[] {
  return endpoint.secrets.filter((secret) => secret.expires_at === null || Date.parse(secret.expires_at) > nowMs).map((secret) => secret.secret);
}

export function wantsEvent(endpoint: Endpoint, type: EventType): boolean {
  return endpoint.event_types.length === 0 || endpoint.event_types.includes(type);
}

export interface DeliveryState {
  /** Stream id of the last event handled in order (delivered, skipped by type or given up). */
  cursor: string;
  /** Failed attempts of the event at the head. */
  attempt: number;
  /** Do not try before this (ms). */
  nextAt: number;
  /** When the head event first failed (ms), 0 when it has not. */
  firstFailedAt: number;
}

/**
 * Where the endpoint's replays stand: the failed attempts of the replay at the head of its list, and its own
 * backoff. Kept apart from DeliveryState, so a refused replay backs off alone while new events go on.
 */
export interface ReplayState {
  attempt: number;
  nextAt: number;
  firstFailedAt: number;
}

export const NO_REPLAY_FAILURE: ReplayState = Object.freeze({ attempt: 0, nextAt: 0, firstFailedAt: 0 });

export interface DeliveryLogEntry {
  event_id: string;
  type: string;
  mc: string | null;
  attempt: number;
  at: string;
  outcome: 'delivered' | 'failed' | 'gave_up' | 'disabled' | 'replayed';
  status: number | null;
  duration_ms: number;
  error: string | null;
  next_attempt_at: string | null;
}

const ENDPOINT_ID = /^ep_[a-z0-9]{16}$/;

export class WebhookStore {
  constructor(private readonly redis: RedisClient, private readonly keys: MonitoringKeys) {}

  async create(account: string, input: { url: string; event_types: EventType[]; description: string | null }, startCursor: string, nowMs = Date.now()): Promise<{ endpoint: Endpoint; secret: string } | null> {
    if ((await this.redis.hlen(this.keys.webhooks(account))) >= MAX_ENDPOINTS_PER_ACCOUNT) return null;
    const id = `ep_${randomBytes(8).toString('hex')}`;
    const secret = newSecret();
    const at = new Date(nowMs).toISOString();
    const endpoint: Endpoint = {
      id, account, url: input.url, event_types: input.event_types, description: input.description, status: 'active',
      disabled_reason: null, created_at: at, secrets: [{ secret, created_at: at, expires_at: null }],
    };
    // State first: a worker that finds the endpoint always finds where to start.
    await this.redis.hset(this.keys.webhookState(account, id), 'cursor', startCursor, 'attempt', 0, 'next_at', 0, 'first_failed_at', 0);
    await this.redis.hset(this.keys.webhooks(account), id, JSON.stringify(endpoint));
    await this.redis.sadd(this.keys.endpoints, `${account}\t${id}`);
    await this.redis.sadd(this.keys.accounts, account);
    return { endpoint, secret };
  }

  async get(account: string, id: string): Promise<Endpoint | null> {
    if (!ENDPOINT_ID.test(id)) return null;
    return parseEndpoint(await this.redis.hget(this.keys.webhooks(account), id));
  }

  async list(account: string): Promise<Endpoint[]> {
    const all = await this.redis.hvals(this.keys.webhooks(account));
    return all.map(parseEndpoint).filter((endpoint): endpoint is Endpoint => endpoint !== null).sort((a, b) => a.created_at.localeCompare(b.created_at));
  }

  /** Every endpoint of every account, for `webhooks list` and the delivery workers. */
  async index(): Promise<Array<{ account: string; id: string }>> {
    return (await this.redis.smembers(this.keys.endpoints)).flatMap((member) => {
      const [account, id] = member.split('\t');
      return account !== undefined && id !== undefined ? [{ account, id }] : [];
    });
  }

  async save(endpoint: Endpoint): Promise<void> {
    await this.redis.hset(this.keys.webhooks(endpoint.account), endpoint.id, JSON.stringify(endpoint));
  }

  async remove(account: string, id: string): Promise<boolean> {
    const removed = await this.redis.hdel(this.keys.webhooks(account), id);
    await this.redis.srem(this.keys.endpoints, `${account}\t${id}`);
    for (const key of [this.keys.webhookState(account, id), this.keys.webhookLog(account, id), this.keys.webhookAhead(account, id), this.keys.webhookReplay(account, id),
      this.keys.webhookReplayIds(account, id)]) {
      await this.redis.del(key);
    }
    return removed > 0;
  }

  async setStatus(endpoint: Endpoint, status: Endpoint['status'], reason: string | null): Promise<Endpoint> {
    const updated = { ...endpoint, status, disabled_reason: status === 'disabled' ? reason : null };
    await this.save(updated);
    return updated;
  }

  /** Adds a new secret; the others stay valid until ROTATION_OVERLAP_MS from now (at most two valid at once). */
  async rotate(endpoint: Endpoint, nowMs = Date.now()): Promise<{ endpoint: Endpoint; secret: string }> {
    const secret = newSecret();
    const at = new Date(nowMs).toISOString();
    const overlapEnd = new Date(nowMs + ROTATION_OVERLAP_MS).toISOString();
    const kept = endpoint.secrets
      .filter((item) => item.expires_at === null || Date.parse(item.expires_at) > nowMs)
      .map((item) => ({ ...item, expires_at: item.expires_at !== null && item.expires_at < overlapEnd ? item.expires_at : overlapEnd }))
      .slice(-1);
    const updated = { ...endpoint, secrets: [...kept, { secret, created_at: at, expires_at: null }] };
    await this.save(updated);
    return { endpoint: updated, secret };
  }

  async state(account: string, id: string): Promise<DeliveryState> {
    const raw = await this.redis.hgetall(this.keys.webhookState(account, id));
    return {
      cursor: raw.cursor ?? '0-0', attempt: Number(raw.attempt ?? 0), nextAt: Number(raw.next_at ?? 0), firstFailedAt: Number(raw.first_failed_at ?? 0),
    };
  }

  async saveState(account: string, id: string, state: DeliveryState): Promise<void> {
    await this.redis.hset(this.keys.webhookState(account, id), 'cursor', state.cursor, 'attempt', state.attempt, 'next_at', state.nextAt, 'first_failed_at', state.firstFailedAt);
  }

  async log(account: string, id: string, entries: DeliveryLogEntry[]): Promise<void> {
    if (entries.length === 0) return;
    const key = this.keys.webhookLog(account, id);
    await this.redis.pipeline().lpush(key, ...entries.map((entry) => JSON.stringify(entry))).ltrim(key, 0, DELIVERY_LOG_MAX - 1).exec();
  }

  async readLog(account: string, id: string, limit: number): Promise<DeliveryLogEntry[]> {
    const raw = await this.redis.lrange(this.keys.webhookLog(account, id), 0, limit - 1);
    return raw.map((line) => JSON.parse(line) as DeliveryLogEntry);
  }

  /**
   * Queues stream ids for replay, each at most once (one already queued is not queued again): how many were
   * added and how many are queued now, or added null when they would pass REPLAY_QUEUE_MAX (nothing queued).
   */
  async queueReplay(account: string, id: string, streamIds: string[]): Promise<{ added: number | null; queued: number }> {
    return luaScripts.webhookQueueReplay(this.redis, {
      list: this.keys.webhookReplay(account, id), ids: this.keys.webhookReplayIds(account, id),
    }, REPLAY_QUEUE_MAX, streamIds);
  }

  /** The first `count` queued replays, oldest request first. */
  async replayQueue(account: string, id: string, count: number): Promise<string[]> {
    return this.redis.lrange(this.keys.webhookReplay(account, id), 0, count - 1);
  }

  /** Takes one replay off the queue (by value: ids are queued once, so this never takes another's place). */
  async dropReplay(account: string, id: string, streamId: string): Promise<void> {
    await this.redis.multi().lrem(this.keys.webhookReplay(account, id), 1, streamId).srem(this.keys.webhookReplayIds(account, id), streamId).exec();
  }

  async replayState(account: string, id: string): Promise<ReplayState> {
    const [attempt, nextAt, firstFailedAt] = await this.redis.hmget(this.keys.webhookState(account, id), 'replay_attempt', 'replay_next_at', 'replay_first_failed_at');
    return { attempt: Number(attempt ?? 0), nextAt: Number(nextAt ?? 0), firstFailedAt: Number(firstFailedAt ?? 0) };
  }

  async saveReplayState(account: string, id: string, state: ReplayState): Promise<void> {
    await this.redis.hset(this.keys.webhookState(account, id), 'replay_attempt', state.attempt, 'replay_next_at', state.nextAt, 'replay_first_failed_at', state.firstFailedAt);
  }

  /**
   * `enable`: delivery starts over at once. The backoff of events and replays is cleared, and a replay the
   * receiver has already refused is dropped (a replay is a one-off request; the caller can ask again). Returns
   * the dropped replay's stream id, if any.
   */
  async restart(account: string, id: string): Promise<string | null> {
    const state = await this.state(account, id);
    await this.saveState(account, id, { ...state, attempt: 0, nextAt: 0, firstFailedAt: 0 });
    const replay = await this.replayState(account, id);
    let dropped: string | null = null;
    if (replay.attempt > 0) {
      const [head] = await this.replayQueue(account, id, 1);
      if (head !== undefined) {
        await this.dropReplay(account, id, head);
        dropped = head;
      }
    }
    await this.saveReplayState(account, id, NO_REPLAY_FAILURE);
    return dropped;
  }
}

function parseEndpoint(raw: string | null): Endpoint | null {
  if (!raw) return null;
  try {
    const parsed = endpointSchema.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
