// One typed function per Lua script in src/lua. Each registers its script on the client once (defineCommand:
// EVALSHA with the NOSCRIPT fallback, on every Cluster node as needed), names its keys by role, and decodes the
// reply with zod here, in one place, so callers never cast what Redis sent. Every script's keys share one hash
// tag (documented in each .lua file), so each call touches one cluster slot; the one exception, carrier-read.lua,
// takes any number of untagged keys and is never called on a Cluster, and is sent as EVALSHA by sendFlatScript
// rather than registered (its argument list grows with the turn: src/redis/flat-command.ts).
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { Redis, Result } from 'ioredis';
import type { RedisClient } from './connection.js';
import { flatScript, sendFlatScript, type FlatScript } from './flat-command.js';

const LUA_DIR = new URL('../lua/', import.meta.url);

const SOURCES = {
  slidingWindowDraw: { file: 'sliding-window-draw.lua', keys: 2 },
  batchCreate: { file: 'batch-create.lua', keys: 3 },
  batchClaimSlot: { file: 'batch-claim-slot.lua', keys: 1 },
  batchReleaseSlot: { file: 'batch-release-slot.lua', keys: 1 },
  batchBeginChunk: { file: 'batch-begin-chunk.lua', keys: 1 },
  batchCompleteChunk: { file: 'batch-complete-chunk.lua', keys: 4 },
  batchTerminate: { file: 'batch-terminate.lua', keys: 4 },
  batchHeartbeat: { file: 'batch-heartbeat.lua', keys: 1 },
  doNotUseApply: { file: 'dnu-apply.lua', keys: 4 },
  webhookQueueReplay: { file: 'webhook-queue-replay.lua', keys: 2 },
  leaseRenew: { file: 'lease-renew.lua', keys: 1 },
  leaseRelease: { file: 'lease-release.lua', keys: 1 },
  monitoringUnwatch: { file: 'monitoring-unwatch.lua', keys: 5 },
  decisionEvict: { file: 'decision-evict.lua', keys: 1 },
  decisionArchiverLock: { file: 'decision-archiver-lock.lua', keys: 1 },
  policyPublish: { file: 'policy-publish.lua', keys: 3 },
  snapshotFlip: { file: 'snapshot-flip.lua', keys: 7 },
  ingestLock: { file: 'ingest-lock.lua', keys: 2 },
  snapshotSweep: { file: 'snapshot-sweep.lua', keys: 6 },
  overrideTransition: { file: 'override-transition.lua', keys: 3 },
  reviewSet: { file: 'review-set.lua', keys: 2 },
} as const;

type Arg = string | number | Buffer;

// The commands defineCommand adds, declared on ioredis' command interface (its documented way to type custom
// commands), so the clients carry them without a cast. Each takes its keys, then its arguments.
declare module 'ioredis' {
  interface RedisCommander<Context> {
    slidingWindowDraw(...args: Arg[]): Result<unknown, Context>;
    batchCreate(...args: Arg[]): Result<unknown, Context>;
    batchClaimSlot(...args: Arg[]): Result<unknown, Context>;
    batchReleaseSlot(...args: Arg[]): Result<unknown, Context>;
    batchBeginChunk(...args: Arg[]): Result<unknown, Context>;
    batchCompleteChunk(...args: Arg[]): Result<unknown, Context>;
    batchTerminate(...args: Arg[]): Result<unknown, Context>;
    batchHeartbeat(...args: Arg[]): Result<unknown, Context>;
    doNotUseApply(...args: Arg[]): Result<unknown, Context>;
    webhookQueueReplay(...args: Arg[]): Result<unknown, Context>;
    leaseRenew(...args: Arg[]): Result<unknown, Context>;
    leaseRelease(...args: Arg[]): Result<unknown, Context>;
    monitoringUnwatch(...args: Arg[]): Result<unknown, Context>;
    decisionEvict(...args: Arg[]): Result<unknown, Context>;
    decisionArchiverLock(...args: Arg[]): Result<unknown, Context>;
    policyPublish(...args: Arg[]): Result<unknown, Context>;
    snapshotFlip(...args: Arg[]): Result<unknown, Context>;
    ingestLock(...args: Arg[]): Result<unknown, Context>;
    snapshotSweep(...args: Arg[]): Result<unknown, Context>;
    overrideTransition(...args: Arg[]): Result<unknown, Context>;
    reviewSet(...args: Arg[]): Result<unknown, Context>;
  }
}

/**
 * carrier-read.lua, sent by sendFlatScript instead of defineCommand: its argument list grows with the turn's
 * cache-cold checks (two per check), which ioredis' generated script command would copy with flat()
 * (src/redis/flat-command.ts). Read on first use.
 */
let carrierReadScript: FlatScript | null = null;

type ScriptName = keyof typeof SOURCES;

/** Clients whose script commands are defined (the budget draw calls raw() on the hot path). */
const defined = new WeakSet<RedisClient>();

/** The script's command on `client`, defined on first use; call it with the script's keys, then its arguments. */
function raw(client: RedisClient, name: ScriptName): (...args: Arg[]) => Promise<unknown> {
  if (!defined.has(client)) {
    for (const [script, { file, keys }] of Object.entries(SOURCES)) {
      client.defineCommand(script, { numberOfKeys: keys, lua: readFileSync(new URL(file, LUA_DIR), 'utf8') });
    }
    defined.add(client);
  }
  return (...args) => client[name](...args);
}

const int = z.coerce.number().int();
const drawReply = z.tuple([int, int, int, int]);
const flipReply = z.tuple([int, z.string()]);
const claimReply = z.tuple([int, z.string()]);
const beginReply = z.array(z.string().nullable());
// Lua truncates a table at a nil, so { 0, <missing status> } arrives as [0].
const terminateReply = z.tuple([int]).rest(z.string().nullable());
const dnuReply = z.tuple([z.string(), int]);
const carrierReadReply = z.array(z.string().nullable());
const queueReplayReply = z.tuple([int, int]);
const sweepReply = z.tuple([int]).rest(z.string());
const sweptWhy = z.enum(['due', 'orphan', 'cap']);
const transitionReply = z.tuple([int, z.string()]);

export interface DrawResult { admitted: number; remaining: number; retryAfterMs: number; resetMs: number }
export interface ChunkStart {
  status: string | null; keyId: string | null; snapshotVersion: string | null; rulesetVersion: string | null;
  deadlineMs: string | null; chunkSize: string | null; total: string | null;
}
/** A snapshot version snapshot-sweep.lua chose for removal, and why. */
export interface SweptVersion { version: string; why: 'due' | 'orphan' | 'cap' }
export interface DoNotUseChange { op: 'set' | 'del'; mc: string; entry: string }

export const luaScripts = {
  /** sliding-window-draw.lua: draws up to `wanted` points from one key's window ({key id}). */
  async slidingWindowDraw(client: RedisClient, keys: { log: string; sum: string }, limit: number, windowMs: number, wanted: number, token: string): Promise<DrawResult> {
    const [admitted, remaining, retryAfterMs, resetMs] = drawReply.parse(await raw(client, 'slidingWindowDraw')(keys.log, keys.sum, limit, windowMs, wanted, token));
    return { admitted, remaining, retryAfterMs, resetMs };
  },

  /**
   * carrier-read.lua: HGET of every (bucket, MC number) pair in one call; one entry per pair, null where absent.
   * Untagged keys: standalone and Sentinel only (src/eligibility/carrier-reads.ts sends single HGETs on a Cluster).
   */
  async carrierRead(client: Redis, buckets: readonly string[], mcs: readonly string[]): Promise<Array<string | null>> {
    if (buckets.length !== mcs.length) throw new Error('carrierRead: one MC number per bucket');
    carrierReadScript ??= flatScript(readFileSync(new URL('carrier-read.lua', LUA_DIR), 'utf8'));
    const found = carrierReadReply.parse(await sendFlatScript(client, carrierReadScript, [String(buckets.length), ...buckets, ...mcs]));
    if (found.length !== buckets.length) throw new Error(`carrierRead: ${found.length} replies for ${buckets.length} reads`);
    return found;
  },

  /** batch-create.lua: true when created, false when the id already exists ({job id}). */
  async batchCreate(client: RedisClient, keys: { job: string; rows: string; stream: string }, expiryMs: number, group: string, fields: Record<string, string>, chunks: readonly string[]): Promise<boolean> {
    const reply = await raw(client, 'batchCreate')(keys.job, keys.rows, keys.stream, expiryMs, group, Object.keys(fields).length, ...Object.entries(fields).flat(), ...chunks);
    return int.parse(reply) === 1;
  },

  /** batch-claim-slot.lua: claims a key's active slot; the holder afterwards ({key id}). */
  async batchClaimSlot(client: RedisClient, slot: string, jobId: string, ttlMs: number, replaceable: string): Promise<{ claimed: boolean; holder: string }> {
    const [claimed, holder] = claimReply.parse(await raw(client, 'batchClaimSlot')(slot, jobId, ttlMs, replaceable));
    return { claimed: claimed === 1, holder };
  },

  /** batch-release-slot.lua: compare-and-delete of a key's active slot. */
  async batchReleaseSlot(client: RedisClient, slot: string, jobId: string): Promise<boolean> {
    return int.parse(await raw(client, 'batchReleaseSlot')(slot, jobId)) === 1;
  },

  /** batch-begin-chunk.lua: marks the job running and returns the fields a worker needs. */
  async batchBeginChunk(client: RedisClient, jobKey: string, nowIso: string): Promise<ChunkStart> {
    const values = beginReply.parse(await raw(client, 'batchBeginChunk')(jobKey, nowIso));
    const [status, keyId, snapshotVersion, rulesetVersion, deadlineMs, chunkSize, total] = values.concat(Array(7).fill(null));
    return {
      status: status ?? null, keyId: keyId ?? null, snapshotVersion: snapshotVersion ?? null, rulesetVersion: rulesetVersion ?? null,
      deadlineMs: deadlineMs ?? null, chunkSize: chunkSize ?? null, total: total ?? null,
    };
  },

  /** batch-complete-chunk.lua: 0 nothing recorded, 1 recorded, 2 recorded and the job is complete. */
  async batchCompleteChunk(
    client: RedisClient, keys: { job: string; out: string; stream: string; rows: string },
    args: { group: string; entryId: string; chunkIndex: number; block: string; rows: number; counts: readonly number[]; nowIso: string; retentionMs: number },
  ): Promise<0 | 1 | 2> {
    const reply = int.parse(await raw(client, 'batchCompleteChunk')(
      keys.job, keys.out, keys.stream, keys.rows, args.group, args.entryId, args.chunkIndex, args.block, args.rows,
      ...args.counts, args.nowIso, args.retentionMs,
    ));
    return reply === 2 ? 2 : reply === 1 ? 1 : 0;
  },

  /** batch-terminate.lua: ends an active job; whether this call ended it, and the status it found. */
  async batchTerminate(
    client: RedisClient, keys: { job: string; stream: string; rows: string; out: string },
    status: 'cancelled' | 'failed', reason: string, nowIso: string, retentionMs: number,
  ): Promise<{ ended: boolean; status: string | null }> {
    const [ended, found] = terminateReply.parse(await raw(client, 'batchTerminate')(keys.job, keys.stream, keys.rows, keys.out, status, reason, nowIso, retentionMs));
    return { ended: ended === 1, status: found ?? null };
  },

  /** decision-evict.lua: true when the bucket is gone (evicted now or before), false when its count differs. */
  async decisionEvict(client: RedisClient, bucket: string, archived: number): Promise<boolean> {
    return int.parse(await raw(client, 'decisionEvict')(bucket, archived)) === 1;
  },

  /** decision-archiver-lock.lua: true while this token holds the archiver's lease ({ctl}); ttlMs 0 gives it up. */
  async decisionArchiverLock(client: RedisClient, lease: string, token: string, ttlMs: number): Promise<boolean> {
    return int.parse(await raw(client, 'decisionArchiverLock')(lease, token, ttlMs)) === 1;
  },

  /** batch-heartbeat.lua: true while this consumer still owns the entry. */
  async batchHeartbeat(client: RedisClient, stream: string, group: string, consumer: string, entryId: string): Promise<boolean> {
    return int.parse(await raw(client, 'batchHeartbeat')(stream, group, consumer, entryId)) === 1;
  },

  /** ingest-lock.lua: the lock and a new fencing token in one step; null when the lock is held (not `take`). */
  async ingestLock(client: RedisClient, keys: { lock: string; fence: string }, value: string, ttlMs: number, take: boolean): Promise<string | null> {
    const token = int.parse(await raw(client, 'ingestLock')(keys.lock, keys.fence, value, ttlMs, take ? 'take' : 'free'));
    return token === 0 ? null : String(token);
  },

  /**
   * snapshot-flip.lua: makes `version` current when `token` is still the ingest fence's value; otherwise publishes
   * nothing and returns the fence's current value.
   */
  async snapshotFlip(
    client: RedisClient,
    keys: { fence: string; current: string; meta: string; versions: string; retired: string; deploymentMark: string; notEligible: string },
    args: { token: string; version: string; meta: string; retireAtMs: number; deploymentMark: string; notEligible: Buffer | null },
  ): Promise<{ published: true; previous: string | null } | { published: false; fence: string }> {
    const reply = flipReply.parse(await raw(client, 'snapshotFlip')(
      keys.fence, keys.current, keys.meta, keys.versions, keys.retired, keys.deploymentMark, keys.notEligible,
      args.token, args.version, args.meta, args.retireAtMs, args.deploymentMark, args.notEligible ?? '',
    ));
    return reply[0] === 1 ? { published: true, previous: reply[1] || null } : { published: false, fence: reply[1] };
  },

  /**
   * snapshot-sweep.lua: the snapshot versions to remove now (retired past their grace, orphans, the oldest retired
   * beyond `maxVersions`), claimed in one step ({ctl}). As the sweeper: null while another sweeper holds the lease.
   */
  async snapshotSweep(
    client: RedisClient,
    keys: { current: string; versions: string; retired: string; lock: string; fence: string; lease: string },
    args: { nowMs: number; maxVersions: number } & ({ as: 'sweeper'; token: string; leaseMs: number } | { as: 'ingest'; own: string; reserve: 0 | 1 }),
  ): Promise<SweptVersion[] | null> {
    const [held, ...pairs] = sweepReply.parse(await raw(client, 'snapshotSweep')(
      keys.current, keys.versions, keys.retired, keys.lock, keys.fence, keys.lease, args.nowMs, args.maxVersions, args.as,
      args.as === 'sweeper' ? args.token : args.own, args.as === 'sweeper' ? args.leaseMs : args.reserve,
    ));
    if (held !== 1) return null;
    const swept: SweptVersion[] = [];
    for (let i = 0; i + 1 < pairs.length; i += 2) swept.push({ version: pairs[i] as string, why: sweptWhy.parse(pairs[i + 1]) });
    return swept;
  },

  /** lease-renew.lua: extends the lease by `leaseMs` when `token` still holds it; false when it does not. */
  async leaseRenew(client: RedisClient, lease: string, token: string, leaseMs: number): Promise<boolean> {
    return int.parse(await raw(client, 'leaseRenew')(lease, token, leaseMs)) === 1;
  },

  /** lease-release.lua: deletes the lease when `token` still holds it; false when it does not. */
  async leaseRelease(client: RedisClient, lease: string, token: string): Promise<boolean> {
    return int.parse(await raw(client, 'leaseRelease')(lease, token)) === 1;
  },

  /**
   * monitoring-unwatch.lua: removes an account from a carrier's watchers (with its own baseline of the carrier), and
   * the carrier from its shard's watched set, baseline and schedule when no account is left ({monw:<shard>}); how many accounts still watch it.
   */
  async monitoringUnwatch(
    client: RedisClient, keys: { watchers: string; watched: string; baseline: string; schedule: string; accountBaseline: string }, account: string, mc: string,
  ): Promise<number> {
    return int.parse(await raw(client, 'monitoringUnwatch')(keys.watchers, keys.watched, keys.baseline, keys.schedule, keys.accountBaseline, account, mc));
  },

  /**
   * dnu-apply.lua: applies do-not-use changes to the list, appends them to the change log and moves the epoch,
   * atomically ({ctl}); returns the epoch afterwards and how many changes took effect.
   */
  async doNotUseApply(
    client: RedisClient, keys: { list: string; log: string; epoch: string; mark: string },
    changes: readonly DoNotUseChange[], logMaxLen: number, markValue: string,
  ): Promise<{ epoch: string; changed: number }> {
    const args = changes.flatMap((change) => [change.op, change.mc, change.entry]);
    const [epoch, changed] = dnuReply.parse(await raw(client, 'doNotUseApply')(keys.list, keys.log, keys.epoch, keys.mark, logMaxLen, markValue, ...args));
    return { epoch, changed };
  },

  /**
   * webhook-queue-replay.lua: queues stream ids for replay, each once, at most `cap` in all ({mon:<account>});
   * added is null when the ids would overflow the cap (nothing queued then).
   */
  async webhookQueueReplay(client: RedisClient, keys: { list: string; ids: string }, cap: number, streamIds: readonly string[]): Promise<{ added: number | null; queued: number }> {
    const [added, queued] = queueReplayReply.parse(await raw(client, 'webhookQueueReplay')(keys.list, keys.ids, cap, ...streamIds));
    return { added: added < 0 ? null : added, queued };
  },

  /** policy-publish.lua: the account's next policy version, made current, with the policy epoch moved ({ctl}). */
  async policyPublish(client: RedisClient, keys: { versions: string; current: string; epoch: string }, account: string, body: string): Promise<number> {
    return int.parse(await raw(client, 'policyPublish')(keys.versions, keys.current, keys.epoch, account, body));
  },

  /**
   * override-transition.lua: one override state change if the record is still exactly `args.before` ('' for a new
   * one), with its log entry and history entry ({ovr:<account>}); false when the record moved meanwhile.
   */
  async overrideTransition(
    client: RedisClient, keys: { records: string; log: string; history: string },
    args: { id: string; before: string; after: string; action: string; entry: string },
  ): Promise<boolean> {
    const [applied] = transitionReply.parse(await raw(client, 'overrideTransition')(
      keys.records, keys.log, keys.history, args.id, args.before, args.after, args.action, args.entry,
    ));
    return applied === 1;
  },

  /** review-set.lua: writes a review item if it is still exactly `before` ('' for none) ({ovr:<account>}); false when it moved. */
  async reviewSet(client: RedisClient, keys: { reviews: string; index: string }, mc: string, before: string, after: string): Promise<boolean> {
    return int.parse(await raw(client, 'reviewSet')(keys.reviews, keys.index, mc, before, after, Number(mc))) === 1;
  },
};
