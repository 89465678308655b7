// Read-only view of the snapshot state, for `carrier-eligibility data status` and /v1/health per-source freshness.
import type { RedisClient } from '../redis/connection.js';
import type { SnapshotMeta } from '../core/carrier.js';
import type { RedisKeys } from './keys.js';
import { retiredKey } from './snapshot-writer.js';
import { decodeSnapshotMeta } from './stored-json.js';

export interface SnapshotStatus {
  current_version: string | null;
  /** Meta of the serving version; null when none is current (or its meta is missing: fail closed). */
  meta: SnapshotMeta | null;
  /** Versions an ingest has started and not committed (one running now, or orphans of a killed one). */
  being_written: string[];
  /** Replaced versions waiting out the grace period before removal. */
  retired: Array<{ version: string; remove_after: string }>;
}

export async function readSnapshotStatus(redis: RedisClient, keys: RedisKeys): Promise<SnapshotStatus> {
  const current = await redis.get(keys.snapshotCurrent);
  const rawMeta = current ? await redis.get(keys.snapshotMeta(current)) : null;
  const writing = await redis.zrange(keys.snapshotVersions, 0, -1);
  const retired = await redis.zrange(retiredKey(keys), 0, -1, 'WITHSCORES');
  const pairs: SnapshotStatus['retired'] = [];
  for (let i = 0; i + 1 < retired.length; i += 2) {
    pairs.push({ version: retired[i] as string, remove_after: new Date(Number(retired[i + 1])).toISOString() });
  }
  return {
    current_version: current,
    meta: rawMeta ? decodeSnapshotMeta(rawMeta, 'snapshot meta') : null,
    being_written: writing,
    retired: pairs,
  };
}
