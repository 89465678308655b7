// How many snapshot versions Redis holds: at most SNAPSHOT_MAX_VERSIONS at once, the serving one and one being
// written included. A version leaves when its retire grace is over, when it is an orphan (an ingest began it and
// never published), or, oldest first, when keeping it would pass the cap. snapshot-sweep.lua chooses and claims
// the versions in one step; this module removes them.
//
// Two callers: the ingest, under its lock, before it writes (making room for its own version) and after its flip;
// and the sweeper, on a schedule in the worker role (one at a time, by lease), so retired versions leave when their
// grace ends and not only when the next ingest runs.
import { randomUUID } from 'node:crypto';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { createRedis, redisTarget, type RedisClient, type RedisTarget } from '../redis/connection.js';
import { luaScripts, type SweptVersion } from '../redis/scripts.js';
import type { RedisKeys } from './keys.js';
import { removeSnapshotVersion } from './snapshot-writer.js';

/** Default cap: the serving version, one retired (batch jobs pinned to it) and one being written. */
export const DEFAULT_MAX_VERSIONS = 3;

const sweepKeys = (keys: RedisKeys) => ({
  current: keys.snapshotCurrent, versions: keys.snapshotVersions, retired: keys.snapshotRetired,
  lock: keys.ingestLock, fence: keys.ingestFence, lease: keys.snapshotSweeper,
});

/** Removes each chosen version; one that fails stays listed (the next sweep or ingest retries it), never throws. */
async function removeAll(redis: RedisClient, keys: RedisKeys, swept: SweptVersion[], maxVersions: number, warn: (message: string) => void): Promise<string[]> {
  const removed: string[] = [];
  for (const { version, why } of swept) {
    if (why === 'cap') {
      warn(`snapshot version ${version} removed before its retire grace ended, to keep at most SNAPSHOT_MAX_VERSIONS=${maxVersions} versions; batch rows pinned to it answer data_stale`);
    }
    try {
      await removeSnapshotVersion(redis, keys, version);
      removed.push(version);
    } catch (error) {
      warn(`could not remove old snapshot version ${version} (retried by the next sweep): ${(error as Error).message}`);
    }
  }
  return removed;
}

/**
 * Called by the ingest lock's holder: removes orphans and retired versions past their grace, and the oldest
 * retired ones beyond the cap, counting `reserve` versions about to be written (1 before writing, 0 after the flip).
 */
export async function sweepForIngest(
  redis: RedisClient, keys: RedisKeys, options: { nowMs: number; maxVersions: number; own: string; reserve: 0 | 1 }, warn: (message: string) => void,
): Promise<string[]> {
  const swept = await luaScripts.snapshotSweep(redis, sweepKeys(keys), { as: 'ingest', ...options });
  return removeAll(redis, keys, swept ?? [], options.maxVersions, warn);
}

/** One scheduled pass: null when another sweeper holds the lease, else the versions removed. */
export async function sweepOnce(
  redis: RedisClient, keys: RedisKeys, options: { nowMs: number; maxVersions: number; token: string; leaseMs: number }, warn: (message: string) => void,
): Promise<string[] | null> {
  const swept = await luaScripts.snapshotSweep(redis, sweepKeys(keys), { as: 'sweeper', ...options });
  return swept === null ? null : removeAll(redis, keys, swept, options.maxVersions, warn);
}

export interface SnapshotSweeper {
  stop(): Promise<void>;
}

/** The worker role's sweeper: a pass every `intervalMs` (the first soon after start), one sweeper at a time. */
export function startSnapshotSweeper(
  target: RedisTarget, keys: RedisKeys, options: { intervalMs: number; maxVersions: number; log: Logger },
): SnapshotSweeper {
  const { intervalMs, maxVersions, log } = options;
  const redis = createRedis(target, 'background');
  const token = randomUUID();
  // The lease outlives a pass (removing a version takes a few seconds), and lapses when its holder is gone.
  const leaseMs = Math.max(3 * intervalMs, 30_000);
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> = Promise.resolve();
  const warn = (message: string) => log.warn({ event: 'snapshot_sweep' }, message);
  const runPass = () => {
    running = sweepOnce(redis, keys, { nowMs: Date.now(), maxVersions, token, leaseMs }, warn)
      .then((removed) => {
        if (removed && removed.length > 0) log.info({ event: 'snapshot_sweep', removed }, 'snapshot versions removed');
      })
      .catch((error: unknown) => log.error({ err: error, event: 'snapshot_sweep' }, 'snapshot sweep failed; retried next interval'))
      .finally(() => {
        if (!stopped) timer = setTimeout(runPass, intervalMs);
      });
  };
  timer = setTimeout(runPass, Math.min(1000, intervalMs));
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
      await luaScripts.leaseRelease(redis, keys.snapshotSweeper, token).catch(() => false);
      redis.disconnect();
    },
  };
}

/** The sweeper as the worker role starts it from the config. */
export function snapshotSweeperFromConfig(config: Config, keys: RedisKeys, log: Logger): SnapshotSweeper {
  return startSnapshotSweeper(redisTarget(config), keys, {
    intervalMs: config.SNAPSHOT_SWEEP_INTERVAL_SECONDS * 1000, maxVersions: config.SNAPSHOT_MAX_VERSIONS, log,
  });
}
