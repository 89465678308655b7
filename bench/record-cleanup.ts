// Removes the decision records the bench's servers wrote, between measured runs, so every run starts from the
// same Redis: the seeded snapshot, keys and budgets, not whatever the servers before it left behind.
//
// Why: the peers write one SET per answer with its whole evidence (~3.5 KB, ~18,000
// a second each, ~4 GB over a five-round run) and the service one hash field per answer; the private Redis shares
// CPU 1 with wrk, so a Redis made slower by that pile (6.1–6.7 µs of its CPU per cache-cold check instead of 4.9)
// takes CPU from the load generator and lengthens every reply. A row then depended on which servers ran before it:
// the cache-cold p99 was 5.1–5.6 ms in full runs and 4.3–4.5 ms with the peers' records off. Shared evidence and
// snapshot manifests stay (the service remembers which it has written and would not write them again).
import type { Redis } from 'ioredis';
import { deleteByPrefix } from '../src/redis/delete-by-prefix.js';
import { redisKeys } from '../src/store/keys.js';
import { peerRecordsHead } from './peers/peer-keys.js';

/** Key prefixes of the decision records under the bench's prefix: the service's buckets, the peers' SETs. */
export function recordPrefixes(prefix: string): string[] {
  return [redisKeys(prefix).decisionBucketsHead, peerRecordsHead(prefix)];
}

/**
 * Unlinks every record key and waits until Redis has freed them in the background, so the freeing is not charged
 * to the next run's Redis CPU or latency. Returns the keys removed.
 */
export async function clearRecords(redis: Redis, prefix: string, timeoutMs = 30_000): Promise<number> {
  let removed = 0;
  for (const head of recordPrefixes(prefix)) removed += await deleteByPrefix(redis, head);
  await lazyFreeDone(redis, timeoutMs);
  return removed;
}

/** Waits for INFO's lazyfree_pending_objects to reach 0 (UNLINK frees large values on a background thread). */
async function lazyFreeDone(redis: Redis, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const pending = /lazyfree_pending_objects:(\d+)/.exec(await redis.info('memory'));
    if (pending === null || pending[1] === '0') return;
    if (Date.now() > deadline) throw new Error(`Redis still freeing ${pending[1]} objects after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
