// One way to read decision records for the API and the CLI: Redis within its window, the archive beyond it.
// By id: Redis first (the window), then the archive; the caller compares accounts, so another account's
// record and an unknown id answer alike. Search: the archive up to where it is complete, Redis after that,
// in decision-id order, paginated by an opaque cursor, deduplicated by id.
import type { RedisClient } from '../redis/connection.js';
import type { RedisKeys } from '../store/keys.js';
import type { ArchiveReader } from './archive-reader.js';
import { DecisionReader, type DecisionView } from './reader.js';
import { decodeRecord, idMillis } from './record-codec.js';

/** Redis seconds read per page at most (the not-yet-archived tail is normally about a minute). */
const MAX_REDIS_SECONDS = 3600;
export const FIND_MAX_LIMIT = 500;

export interface FindRequest {
  account: string;
  mc: string | null;
  fromMs: number;
  toMs: number;
  limit: number;
  cursor: string | null;
}

export interface FindPage {
  items: DecisionView[];
  /** Pass back as `cursor` for the next page; null when the range is exhausted. */
  next_cursor: string | null;
}

interface Cursor {
  /** Last id returned, or null. */
  a: string | null;
  /** Where scanning resumes, ms. */
  f: number;
}

export function decodeCursor(text: string): Cursor | null {
  try {
    const value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as Partial<Cursor>;
    if (typeof value.f !== 'number' || !(value.a === null || typeof value.a === 'string')) return null;
    return { a: value.a, f: value.f };
  } catch {
    return null;
  }
}

const encodeCursor = (cursor: Cursor) => Buffer.from(JSON.stringify(cursor)).toString('base64url');

export class DecisionLookup {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
    readonly reader: DecisionReader,
    readonly archive: ArchiveReader | null,
  ) {}

  /** The record of an id from the window or the archive (any account's: the caller compares), or null. */
  async read(id: string): Promise<DecisionView | null> {
    const stored = await this.reader.readStored(id);
    if (stored) return this.reader.view(stored);
    return this.archive ? this.archive.read(id) : null;
  }

  /** One page of an account's records; throws on a malformed cursor (the caller answers 400/422). */
  async find(request: FindRequest): Promise<FindPage> {
    const cursor = request.cursor === null ? { a: null, f: request.fromMs } : decodeCursor(request.cursor);
    if (!cursor) throw new RangeError('cursor');
    const fromMs = Math.max(request.fromMs, cursor.f);
    const limit = Math.min(Math.max(1, request.limit), FIND_MAX_LIMIT);
    const query = { account: request.account, mc: request.mc, fromMs, toMs: request.toMs, afterId: cursor.a, limit: limit + 1 };
    const archivedUntilMs = this.archive ? (await this.archive.archivedUntil()) * 1000 : 0;
    let items: DecisionView[] = [];
    let scannedUntil = fromMs;
    if (this.archive && archivedUntilMs > fromMs) {
      const page = await this.archive.find(query, archivedUntilMs);
      items = page.items;
      scannedUntil = page.scannedUntilMs;
    }
    if (items.length <= limit && scannedUntil >= Math.min(archivedUntilMs, request.toMs)) {
      const redisFrom = Math.max(fromMs, archivedUntilMs);
      const window = await this.fromRedis({ ...query, fromMs: redisFrom }, new Set(items.map((item) => item.decision_id)));
      items.push(...window.items);
      scannedUntil = window.scannedUntilMs;
    }
    if (items.length > limit) {
      items = items.slice(0, limit);
      const last = items[items.length - 1] as DecisionView;
      return { items, next_cursor: encodeCursor({ a: last.decision_id, f: idMillis(last.decision_id) }) };
    }
    if (scannedUntil >= request.toMs) return { items, next_cursor: null };
    return { items, next_cursor: encodeCursor({ a: items.length > 0 ? (items[items.length - 1] as DecisionView).decision_id : cursor.a, f: scannedUntil }) };
  }

  private async fromRedis(
    query: { account: string; mc: string | null; fromMs: number; toMs: number; afterId: string | null; limit: number }, seen: Set<string>,
  ): Promise<{ items: DecisionView[]; scannedUntilMs: number }> {
    const firstSecond = Math.floor(query.fromMs / 1000);
    const endSecond = Math.min(Math.ceil(query.toMs / 1000), firstSecond + MAX_REDIS_SECONDS);
    const items: DecisionView[] = [];
    for (let second = firstSecond; second < endSecond; second++) {
      const flat = await this.redis.hgetall(this.keys.decisionBucket(second));
      const matches = Object.entries(flat).map(([id, raw]) => decodeRecord(id, raw)).filter((record) => {
        const ms = idMillis(record.decisionId);
        return record.context.account === query.account && (query.mc === null || record.verdict.mc_number === query.mc)
          && ms >= query.fromMs && ms < query.toMs && (query.afterId === null || record.decisionId > query.afterId) && !seen.has(record.decisionId);
      }).sort((a, b) => (a.decisionId < b.decisionId ? -1 : 1));
      for (const record of matches) items.push(await this.reader.view(record));
      if (items.length + seen.size >= query.limit) return { items, scannedUntilMs: Math.min(query.toMs, (second + 1) * 1000) };
    }
    return { items, scannedUntilMs: Math.min(query.toMs, endSecond * 1000) };
  }
}
