// Writes and reads of the live do-not-use list for the CLI, ingest and replicas. Every change goes through
// dnu-apply.lua: the hash, an append-only change log (a stream) and the epoch move in one single-slot step,
// so replicas apply only the changes after the epoch they hold instead of reloading the whole list (a
// 20,000-row import made every replica reload the list on each of its 20,000 changes).
import type { RedisClient } from '../redis/connection.js';
import { luaScripts, type DoNotUseChange } from '../redis/scripts.js';
import { deploymentMarkValue } from './deployment-mark.js';
import type { RedisKeys } from './keys.js';

/** Changes kept in the log; a replica more than this far behind reloads the whole list instead. */
export const DNU_LOG_MAX = 100_000;
/** Changes per script call: one import is many short atomic steps, so Redis never blocks for long. */
const APPLY_BATCH = 500;

export async function applyDoNotUse(redis: RedisClient, keys: RedisKeys, changes: readonly DoNotUseChange[]): Promise<{ epoch: string; changed: number }> {
  let epoch = '';
  let changed = 0;
  for (let start = 0; start < changes.length; start += APPLY_BATCH) {
    const result = await luaScripts.doNotUseApply(
      redis, { list: keys.doNotUse, log: keys.doNotUseLog, epoch: keys.doNotUseEpoch, mark: keys.deploymentMark },
      changes.slice(start, start + APPLY_BATCH), DNU_LOG_MAX, deploymentMarkValue('dnu'),
    );
    epoch = result.epoch;
    changed += result.changed;
  }
  return { epoch, changed };
}

export interface DoNotUseLogEntry { id: string; op: 'set' | 'del'; mc: string; entry: string; prev: string }

/** The log entries after `epoch` (at most `count`), oldest first. */
export async function readDoNotUseLog(redis: RedisClient, keys: RedisKeys, epoch: string, count: number): Promise<DoNotUseLogEntry[]> {
  const raw = await redis.xrange(keys.doNotUseLog, `(${epoch}`, '+', 'COUNT', count);
  return raw.map(([id, fields]) => {
    const map = new Map<string, string>();
    for (let i = 0; i + 1 < fields.length; i += 2) map.set(fields[i] as string, fields[i + 1] as string);
    return { id, op: map.get('op') === 'del' ? 'del' : 'set', mc: map.get('mc') ?? '', entry: map.get('entry') ?? '', prev: map.get('prev') ?? '' };
  });
}

/** The list's epoch (null when it was never changed). */
export async function readDoNotUseEpoch(redis: RedisClient, keys: RedisKeys): Promise<string | null> {
  return redis.get(keys.doNotUseEpoch);
}

/**
 * One page of the whole list (HSCAN: short commands, so a large list never needs one long reply that a
 * request-path timeout would cut). Not a consistent snapshot on its own: the caller reads the epoch first and
 * replays the change log after it once the scan is done, which makes the result exact.
 */
export async function scanDoNotUse(redis: RedisClient, keys: RedisKeys, cursor: string, count: number): Promise<{ cursor: string; entries: Array<[string, string]> }> {
  const [next, flat] = await redis.hscan(keys.doNotUse, cursor, 'COUNT', count);
  const entries: Array<[string, string]> = [];
  for (let i = 0; i + 1 < flat.length; i += 2) entries.push([flat[i] as string, flat[i + 1] as string]);
  return { cursor: next, entries };
}
