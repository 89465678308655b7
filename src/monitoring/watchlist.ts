// Watch lists: per account a sorted set of MC numbers (+ when and with what reference each was added), and per
// carrier the set of accounts watching it (the reverse index the fan-out reads, sharded by MC number). Adding
// writes the account side first, then the carrier side; a failure in between answers 503 and the idempotent
// retry completes it. The per-account limit is checked after the add and undone when exceeded, so concurrent
// adds can only err towards refusing.
import { z } from 'zod';
import type { RedisClient } from '../redis/connection.js';
import { sendKeyed, type KeyedCommand } from '../redis/keyed-batch.js';
import { luaScripts } from '../redis/scripts.js';
import { shardOf, type MonitoringKeys } from './keys.js';

export interface WatchItem {
  mc: string;
  ref: string | null;
}

export interface WatchEntry {
  mc: string;
  added_at: string | null;
  ref: string | null;
}

const metaSchema = z.object({ added_at: z.string(), ref: z.string().nullable() });

export type AddResult = { kind: 'ok'; added: number; already: number } | { kind: 'limit'; count: number; limit: number };

export class WatchListStore {
  constructor(private readonly redis: RedisClient, private readonly keys: MonitoringKeys) {}

  async add(account: string, items: readonly WatchItem[], limit: number, nowMs = Date.now()): Promise<AddResult> {
    const { redis, keys } = this;
    const list = keys.watchList(account);
    // The first row of an MC number wins (its reference is kept), as a reader of the file would expect.
    const firstOf = new Map<string, WatchItem>();
    for (const item of items) if (!firstOf.has(item.mc)) firstOf.set(item.mc, item);
    const unique = [...firstOf.values()];
    const existing = unique.length > 0 ? await redis.zmscore(list, ...unique.map((item) => item.mc)) : [];
    const fresh = unique.filter((_, index) => existing[index] === null);
    if (fresh.length > 0) {
      await redis.zadd(list, 'NX', ...fresh.flatMap((item) => [Number(item.mc), item.mc]));
      const count = await redis.zcard(list);
      if (count > limit) {
        await redis.zrem(list, ...fresh.map((item) => item.mc));
        return { kind: 'limit', count: count - fresh.length, limit };
      }
    }
    const addedAt = new Date(nowMs).toISOString();
    const metaPairs = unique.flatMap((item, index) => (existing[index] === null || item.ref !== null
      ? [item.mc, JSON.stringify({ added_at: addedAt, ref: item.ref })] : []));
    const commands: KeyedCommand[] = [];
    if (metaPairs.length > 0) commands.push(['hset', keys.watchMeta(account), ...metaPairs]);
    commands.push(['sadd', keys.accounts, account]);
    // The carrier side for every item (not only new ones), so a retry after a half-done add completes it.
    const byShard = new Map<number, string[]>();
    for (const item of unique) {
      commands.push(['sadd', keys.watchers(item.mc), account]);
      const shard = shardOf(item.mc);
      const list = byShard.get(shard);
      if (list) list.push(item.mc);
      else byShard.set(shard, [item.mc]);
    }
    // One command per shard for the shard-wide sets (a 5000-row add is ~5,100 commands, not 15,000).
    for (const [shard, mcs] of byShard) commands.push(['sadd', keys.watchedCarriers(shard), ...mcs], ['sadd', keys.fresh(shard), ...mcs]);
    await sendKeyed(redis, commands);
    return { kind: 'ok', added: fresh.length, already: unique.length - fresh.length };
  }

  /** True when the account watched the carrier. The carrier side is cleaned up either way (retry-safe). */
  async remove(account: string, mc: string): Promise<boolean> {
    const { redis, keys } = this;
    const removed = await redis.zrem(keys.watchList(account), mc);
    await redis.hdel(keys.watchMeta(account), mc);
    const shard = shardOf(mc);
    await luaScripts.monitoringUnwatch(redis, {
      watchers: keys.watchers(mc), watched: keys.watchedCarriers(shard), baseline: keys.baseline(shard), schedule: keys.schedule(shard),
      accountBaseline: keys.accountBaseline(shard),
    }, account, mc);
    return removed > 0;
  }

  async isWatched(account: string, mc: string): Promise<boolean> {
    return (await this.redis.zscore(this.keys.watchList(account), mc)) !== null;
  }

  async count(account: string): Promise<number> {
    return this.redis.zcard(this.keys.watchList(account));
  }

  /** One page in MC order after `afterMc` (exclusive); `next` is the last MC of the page when more follow. */
  async page(account: string, afterMc: string | null, limit: number): Promise<{ items: WatchEntry[]; next: string | null }> {
    const { redis, keys } = this;
    const mcs = await redis.zrangebyscore(keys.watchList(account), afterMc === null ? '-inf' : `(${afterMc}`, '+inf', 'LIMIT', 0, limit + 1);
    const pageMcs = mcs.slice(0, limit);
    const metas = pageMcs.length > 0 ? await redis.hmget(keys.watchMeta(account), ...pageMcs) : [];
    const items = pageMcs.map((mc, index) => {
      let meta: z.infer<typeof metaSchema> | null = null;
      try {
        const parsed = metaSchema.safeParse(JSON.parse(metas[index] ?? 'null'));
        meta = parsed.success ? parsed.data : null;
      } catch {
        meta = null;
      }
      return { mc, added_at: meta?.added_at ?? null, ref: meta?.ref ?? null };
    });
    return { items, next: mcs.length > limit ? pageMcs[pageMcs.length - 1] ?? null : null };
  }

  /** Accounts watching each carrier (one SMEMBERS per carrier, one round trip per node). */
  async watchersOf(mcs: readonly string[]): Promise<Map<string, string[]>> {
    const replies = await sendKeyed(this.redis, mcs.map((mc) => ['smembers', this.keys.watchers(mc)] as const));
    const out = new Map<string, string[]>();
    mcs.forEach((mc, index) => {
      const accounts = replies[index] as string[];
      if (accounts.length > 0) out.set(mc, accounts);
    });
    return out;
  }
}
