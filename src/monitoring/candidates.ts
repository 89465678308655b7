// Where the detector looks for changes: the watched carriers a page at a time, the ones whose stored record differs
// between two snapshot versions, the ones the do-not-use log names, and the ones the time schedule says are due.
import type { RedisClient } from '../redis/connection.js';
import { sendKeyed } from '../redis/keyed-batch.js';
import { readDoNotUseLog } from '../store/do-not-use.js';
import { carrierBucket, type RedisKeys } from '../store/keys.js';
import { WATCH_SHARDS, type MonitoringKeys } from './keys.js';

/** Carriers read per round trip group. */
export const PAGE = 2000;
const DNU_LOG_PAGE = 5000;

export class Candidates {
  constructor(private readonly redis: RedisClient, private readonly keys: RedisKeys, private readonly mkeys: MonitoringKeys) {}

  /** Every watched carrier, a page at a time. */
  async forEachWatched(visit: (mcs: string[]) => Promise<void>): Promise<void> {
    for (let shard = 0; shard < WATCH_SHARDS; shard++) {
      let cursor = '0';
      do {
        const [next, mcs] = await this.redis.sscan(this.mkeys.watchedCarriers(shard), cursor, 'COUNT', PAGE);
        cursor = next;
        if (mcs.length > 0) await visit(mcs);
      } while (cursor !== '0');
    }
  }

  /** Watched carriers whose stored record differs between the two versions; null when the old one is gone. */
  async diffSnapshots(oldVersion: string, newVersion: string): Promise<string[] | null> {
    const { redis, keys } = this;
    if (oldVersion === '' || (await redis.exists(keys.snapshotMeta(oldVersion))) === 0) return null;
    const changed: string[] = [];
    await this.forEachWatched(async (mcs) => {
      const replies = await sendKeyed(redis, mcs.flatMap((mc) => [
        ['hget', keys.carrierBucket(oldVersion, carrierBucket(mc)), mc] as const,
        ['hget', keys.carrierBucket(newVersion, carrierBucket(mc)), mc] as const,
      ]));
      mcs.forEach((mc, index) => {
        if (replies[2 * index] !== replies[2 * index + 1]) changed.push(mc);
      });
    });
    return changed;
  }

  /** Carriers named by the do-not-use log after `from`; null when the log no longer reaches back that far. */
  async doNotUseChanges(from: string, to: string): Promise<Set<string> | null> {
    if (from === '') return null;
    const changed = new Set<string>();
    let at = from;
    while (at !== to) {
      const entries = await readDoNotUseLog(this.redis, this.keys, at, DNU_LOG_PAGE);
      if (entries.length === 0 || entries[0]?.prev !== at) return null;
      for (const entry of entries) {
        changed.add(entry.mc);
        at = entry.id;
      }
    }
    return changed;
  }

  /** Carriers whose next time-based change (or an override's expiry) is due. */
  async due(nowMs: number): Promise<string[]> {
    const replies = await sendKeyed(this.redis, Array.from({ length: WATCH_SHARDS }, (_, shard) =>
      ['zrangebyscore', this.mkeys.schedule(shard), '-inf', nowMs, 'LIMIT', 0, PAGE] as const));
    return replies.flatMap((reply) => reply as string[]);
  }

  /** Newly watched carriers (up to a page per shard), taken out of the fresh sets. */
  async takeFresh(): Promise<string[]> {
    const replies = await sendKeyed(this.redis, Array.from({ length: WATCH_SHARDS }, (_, shard) => ['spop', this.mkeys.fresh(shard), PAGE] as const));
    return replies.flatMap((reply) => (reply as string[] | null) ?? []);
  }

  /** Empties the fresh sets (a full pass covers every watched carrier; a watch added meanwhile lands there again). */
  async clearFresh(): Promise<void> {
    await sendKeyed(this.redis, Array.from({ length: WATCH_SHARDS }, (_, shard) => ['del', this.mkeys.fresh(shard)] as const));
  }
}
