// Events per account in a Redis Stream (one per account, in its {mon:<account>} slot), trimmed by MINID to the
// retention window on every append. The stream entry id is the feed's position: the pull feed's cursor is that
// id, wrapped so callers treat it as opaque (`c1.<ms>-<seq>` today; only ever compared by the service).
import { z } from 'zod';
import type { RedisClient } from '../redis/connection.js';
import { sendKeyed, type KeyedCommand } from '../redis/keyed-batch.js';
import type { MonitoringEvent } from './events-model.js';
import type { MonitoringKeys } from './keys.js';

export interface StoredEvent {
  streamId: string;
  event: MonitoringEvent;
}

const STREAM_ID = /^\d{1,16}-\d{1,16}$/;

export function encodeCursor(streamId: string): string {
  return `c1.${streamId}`;
}

/** The stream id a cursor stands for, or null when it is not one of ours. */
export function decodeCursor(cursor: string): string | null {
  const id = cursor.startsWith('c1.') ? cursor.slice(3) : '';
  return STREAM_ID.test(id) ? id : null;
}

/** Milliseconds of a UUIDv7's timestamp (event ids are UUIDv7, written in the same millisecond as the entry). */
export function uuidMillis(id: string): number {
  return parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
}

const eventSchema = z.object({ id: z.string(), type: z.string(), mc: z.string().nullable() }).passthrough();

function decodeEntry([streamId, fields]: [string, string[]]): StoredEvent | null {
  const index = fields.indexOf('e');
  try {
    const value: unknown = JSON.parse(fields[index + 1] ?? '');
    // Checked, but the stored object itself is returned: its field order is the documented one.
    return eventSchema.safeParse(value).success ? { streamId, event: value as MonitoringEvent } : null;
  } catch {
    return null;
  }
}

export class EventStore {
  constructor(private readonly redis: RedisClient, private readonly keys: MonitoringKeys, private readonly retentionMs: number) {}

  /** Appends each account's events in order (one XADD per event; per account they stay in order). */
  async append(batch: ReadonlyArray<{ account: string; event: MonitoringEvent }>, nowMs = Date.now()): Promise<void> {
    const minId = String(Math.max(0, nowMs - this.retentionMs));
    const commands: KeyedCommand[] = batch.map(({ account, event }) => [
      'xadd', this.keys.events(account), 'MINID', '~', minId, '*', 't', event.type, 'e', JSON.stringify(event),
    ]);
    await sendKeyed(this.redis, commands);
  }

  /** Up to `limit` events after the stream id (exclusive; null = from the oldest kept). */
  async after(account: string, afterId: string | null, limit: number): Promise<StoredEvent[]> {
    const raw = await this.redis.xrange(this.keys.events(account), afterId === null ? '-' : `(${afterId}`, '+', 'COUNT', limit) as [string, string[]][];
    return raw.map(decodeEntry).filter((entry): entry is StoredEvent => entry !== null);
  }

  /** Events whose entry time is within [fromMs, toMs]. */
  async range(account: string, fromMs: number, toMs: number, limit: number): Promise<StoredEvent[]> {
    const raw = await this.redis.xrange(this.keys.events(account), String(fromMs), String(toMs), 'COUNT', limit) as [string, string[]][];
    return raw.map(decodeEntry).filter((entry): entry is StoredEvent => entry !== null);
  }

  /** One event by id: looked up around its UUIDv7 time, so no index is needed. */
  async byId(account: string, eventId: string): Promise<StoredEvent | null> {
    const ms = uuidMillis(eventId);
    if (!Number.isFinite(ms)) return null;
    for (const entry of await this.range(account, Math.max(0, ms - 1000), ms + 60_000, 10_000)) {
      if (entry.event.id === eventId) return entry;
    }
    return null;
  }

  /** The newest entry id (the cursor of "now"), or null for an empty stream. */
  async newestId(account: string): Promise<string | null> {
    const raw = await this.redis.xrevrange(this.keys.events(account), '+', '-', 'COUNT', 1) as [string, string[]][];
    return raw[0]?.[0] ?? null;
  }
}
