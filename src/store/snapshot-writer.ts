// Writes one complete snapshot version, then flips the pointer: readers never see a half-written version
// because they only read the version named by snapshot:current, and that is set last (in one MULTI with
// the meta, so a replica can never read a pointer whose meta is missing).
//
// Cluster: the carrier buckets are untagged and spread over every slot; they are written (and removed) one key
// per command through sendKeyed, before the flip, so they need no atomicity. Everything the flip touches is in
// the {ctl} slot (src/store/keys.ts), so the flip is one single-slot MULTI:
//   snapshot:<v>:meta          string JSON SnapshotMeta
//   snapshot:current           string version being served
//   snapshot:versions          zset  version → start ms   versions being written (orphans after a crash)
//   snapshot:versions:retired  zset  version → due ms     replaced versions, removed after the grace period
//   snapshot:versions:lock     string {pid, host, at}     one ingest at a time
import { hostname } from 'node:os';
import type { RedisClient } from '../redis/connection.js';
import { sendKeyed, type KeyedCommand } from '../redis/keyed-batch.js';
import { luaScripts } from '../redis/scripts.js';
import { deploymentMarkValue, withDeploymentMark } from './deployment-mark.js';
import type { SnapshotMeta } from '../core/carrier.js';
import { encodeCarrier, type StoredCarrier } from './carrier-codec.js';
import { CARRIER_BUCKETS, carrierBucket, SHARED_CONTACT_BUCKETS, type RedisKeys } from './keys.js';
import { errorCode } from '../thrown.js';

/** Records per pipeline by default, and pipelines allowed in flight: parsing overlaps Redis I/O while memory stays bounded. */
const FLUSH_EVERY = 1000;
const MAX_IN_FLIGHT = 2;

/**
 * Write pacing (INGEST_WRITE_BATCH, INGEST_WRITE_RATE): records per pipeline, and a budget of records per second
 * (0: as fast as the ingest reads). Redis runs one client's pipeline to its end before it serves anyone else, and
 * the ingest competes with the API for CPU where they share a machine: smaller pipelines and a rate below what the
 * ingest could write keep single checks fast while a large ingest runs (bench/ingest-while-serving.ts).
 */
export interface WritePacing { batch: number; ratePerSecond: number }
export const UNPACED: WritePacing = { batch: FLUSH_EVERY, ratePerSecond: 0 };
export const RETIRE_GRACE_MS = 60_000;

export const retiredKey = (keys: RedisKeys) => keys.snapshotRetired;
export const lockKey = (keys: RedisKeys) => keys.ingestLock;

export function newSnapshotVersion(nowMs: number): string {
  return `v${nowMs.toString(36)}${Math.random().toString(36).slice(2, 6)}`;
}

export class SnapshotWriter {
  private pending: KeyedCommand[] = [];
  private written = 0;
  private readonly inFlight: Array<Promise<void>> = [];

  private pacedSince = 0;

  constructor(
    private readonly redis: RedisClient, readonly keys: RedisKeys, readonly version: string,
    private readonly pacing: WritePacing = UNPACED,
  ) {}

  /** Registers the version as "being written" so a crashed ingest can be cleaned up later. */
  async begin(nowMs: number): Promise<void> {
    await this.redis.zadd(this.keys.snapshotVersions, nowMs, this.version);
  }

  async put(mc: string, carrier: StoredCarrier): Promise<void> {
    this.pending.push(['hset', this.keys.carrierBucket(this.version, carrierBucket(mc)), mc, encodeCarrier(carrier)]);
    this.written += 1;
    if (this.pending.length >= this.pacing.batch) await this.flush();
  }

  /** The encoded records of these MCs as written so far (every put before this call included). */
  async readBack(mcs: readonly string[]): Promise<Array<string | null>> {
    await this.flush();
    await this.settle();
    const replies = await sendKeyed(this.redis, mcs.map((mc): KeyedCommand => ['hget', this.keys.carrierBucket(this.version, carrierBucket(mc)), mc]));
    return replies.map((reply) => (typeof reply === 'string' ? reply : null));
  }

  /** Counts records written (an MC overwritten later, e.g. turned ambiguous, counts once per put). */
  get count(): number {
    return this.written;
  }

  /** Sends the batch while the caller keeps parsing; waits only when MAX_IN_FLIGHT batches are unanswered. */
  private async flush(): Promise<void> {
    if (this.pending.length > 0) {
      const batch = this.pending;
      this.pending = [];
      const sent = sendKeyed(this.redis, batch).then(() => undefined);
      // Marked handled now (it is awaited later), so a failing batch never becomes an unhandled rejection.
      sent.catch(() => undefined);
      this.inFlight.push(sent);
    }
    while (this.inFlight.length > MAX_IN_FLIGHT) await this.inFlight.shift();
    await this.pace();
  }

  /** Waits until the records written so far are within the rate budget (a timer: other work runs meanwhile). */
  private async pace(): Promise<void> {
    if (this.pacing.ratePerSecond <= 0) return;
    const now = Date.now();
    if (this.pacedSince === 0) this.pacedSince = now;
    const due = this.pacedSince + (this.written / this.pacing.ratePerSecond) * 1000;
    if (due > now) await new Promise((resolve) => setTimeout(resolve, due - now));
  }

  private async settle(): Promise<void> {
    while (this.inFlight.length > 0) await this.inFlight.shift();
  }

  /**
   * Writes the meta and makes this version current, only while `fence` (the ingest lock's token) is still current;
   * returns the version it replaced (now retired). A stale token publishes nothing and throws FencedOutError.
   */
  async commit(
    meta: Omit<SnapshotMeta, 'version'>, nowMs = Date.now(), graceMs = RETIRE_GRACE_MS, notEligible?: Buffer, fence?: string,
  ): Promise<string | null> {
    await this.flush();
    await this.settle();
    const full: SnapshotMeta = { ...meta, version: this.version };
    if (fence !== undefined) {
      const result = await luaScripts.snapshotFlip(this.redis, {
        fence: this.keys.ingestFence, current: this.keys.snapshotCurrent, meta: this.keys.snapshotMeta(this.version),
        versions: this.keys.snapshotVersions, retired: this.keys.snapshotRetired, deploymentMark: this.keys.deploymentMark,
        notEligible: this.keys.snapshotNotEligible(this.version),
      }, {
        token: fence, version: this.version, meta: JSON.stringify(full), retireAtMs: nowMs + graceMs,
        deploymentMark: deploymentMarkValue('ingest', nowMs), notEligible: notEligible ?? null,
      });
      if (!result.published) throw new FencedOutError(fence, result.fence);
      return result.previous;
    }
    const previous = await this.redis.get(this.keys.snapshotCurrent);
    // One slot ({ctl}): meta, pointer, version sets and the deployment mark change together or not at all.
    const transaction = withDeploymentMark(this.redis.multi(), this.keys, 'ingest')
      .set(this.keys.snapshotMeta(this.version), JSON.stringify(full))
      .set(this.keys.snapshotCurrent, this.version)
      .zrem(this.keys.snapshotVersions, this.version);
    if (previous && previous !== this.version) transaction.zadd(this.keys.snapshotRetired, nowMs + graceMs, previous);
    if (notEligible) transaction.set(this.keys.snapshotNotEligible(this.version), notEligible);
    const results = await transaction.exec();
    const failure = results?.find(([error]) => error);
    if (!results || failure?.[0]) throw failure?.[0] ?? new Error('snapshot commit transaction aborted');
    return previous;
  }

  /** Removes every key of this version; safe to call on a version that was never committed. */
  async abort(): Promise<void> {
    await this.settle().catch(() => undefined);
    await Promise.allSettled(this.inFlight.splice(0));
    this.pending = [];
    await removeSnapshotVersion(this.redis, this.keys, this.version);
  }
}

export async function removeSnapshotVersion(redis: RedisClient, keys: RedisKeys, version: string): Promise<void> {
  if ((await redis.get(keys.snapshotCurrent)) === version) throw new Error(`refusing to remove the current snapshot ${version}`);
  for (let start = 0; start < CARRIER_BUCKETS; start += 1024) {
    // UNLINK frees memory off the main thread; one key per command keeps it cluster-safe.
    const batch: KeyedCommand[] = [];
    for (let bucket = start; bucket < Math.min(start + 1024, CARRIER_BUCKETS); bucket++) {
      batch.push(['unlink', keys.carrierBucket(version, bucket)]);
    }
    await sendKeyed(redis, batch);
  }
  // The version's shared-contact index (src/identity) goes with it.
  await sendKeyed(redis, Array.from({ length: SHARED_CONTACT_BUCKETS }, (_, bucket): KeyedCommand => ['unlink', keys.sharedContacts(version, bucket)]));
  // The version's watch-list entries (src/ingest/list-diff.ts).
  await sendKeyed(redis, ['ofac_sdn', 'ofac_cons', 'sam'].map((list): KeyedCommand => ['unlink', keys.snapshotListEntries(version, list)]));
  // Meta last (one {ctl} MULTI): a version whose meta is still there may still have buckets.
  await redis.multi().unlink(keys.snapshotMeta(version)).unlink(keys.snapshotNotEligible(version)).zrem(keys.snapshotVersions, version).zrem(keys.snapshotRetired, version).exec();
}

export class IngestLockedError extends Error {}

/** The ingest lost its lock while it ran (paused past the TTL, another ingest took over): nothing was published. */
export class FencedOutError extends Error {
  constructor(readonly token: string, readonly current: string) {
    super(`this ingest lost its lock while it ran (fencing token ${token}, now ${current || 'none'}: another ingest took over); nothing was published`);
    this.name = 'FencedOutError';
  }
}

interface LockHolder { pid: number; host: string; at: number }

/** The lock's release function, carrying the fencing token the flip must present. */
export type IngestLock = (() => Promise<void>) & { token: string };

function alive(holder: LockHolder): boolean {
  if (holder.host !== hostname()) return true;
  try {
    process.kill(holder.pid, 0);
    return true;
  } catch (error) {
    return errorCode(error) === 'EPERM';
  }
}

/**
 * One ingest at a time. The lock expires on its own (TTL, refreshed while held); a holder on this host whose
 * process is gone (SIGKILL) is taken over at once, so the next ingest does not wait out the TTL.
 */
export async function acquireIngestLock(redis: RedisClient, keys: RedisKeys, ttlMs = 30_000): Promise<IngestLock> {
  const key = keys.ingestLock;
  const value = JSON.stringify({ pid: process.pid, host: hostname(), at: Date.now() } satisfies LockHolder);
  const lock = { lock: key, fence: keys.ingestFence };
  let token = await luaScripts.ingestLock(redis, lock, value, ttlMs, false);
  if (token === null) {
    const raw = await redis.get(key);
    const holder = raw ? (JSON.parse(raw) as LockHolder) : null;
    if (holder && alive(holder)) throw new IngestLockedError(`another ingest is running (pid ${holder.pid} on ${holder.host})`);
    token = await luaScripts.ingestLock(redis, lock, value, ttlMs, true);
  }
  const fence = token ?? '';
  // Renewed only while it is still ours: a holder that was paused past the TTL never extends its successor's lock.
  const timer = setInterval(() => void luaScripts.leaseRenew(redis, key, value, ttlMs).catch(() => undefined), ttlMs / 3);
  timer.unref();
  return Object.assign(async () => {
    clearInterval(timer);
    await luaScripts.leaseRelease(redis, key, value).catch(() => undefined);
  }, { token: fence });
}

/**
 * How long a replaced snapshot version is kept. Replicas switch within a second, but a batch job pins the
 * version it was accepted on and may run until its deadline, so the grace covers the longest job plus a minute.
 */
export function retiredSnapshotGraceMs(config: { BATCH_JOB_DEADLINE_SECONDS: number }): number {
  return Math.max(RETIRE_GRACE_MS, (config.BATCH_JOB_DEADLINE_SECONDS + 60) * 1000);
}
