// A snapshot switch without a cold carrier cache.
//
// The carrier LRU holds one snapshot's lookups and is emptied when the replica starts serving another
// (src/eligibility/carrier-cache.ts), so without a carry-over every replica answers its whole working set from
// Redis again after every ingest: a miss on a found carrier costs about 2.5× a hit's CPU (41 against 16 µs
// saturated, bench/README.md) and one more Redis round trip, all at once on every replica, just when the dispatch desks start
// checking the new data. bench/snapshot-flip.ts measures the checks after a switch.
//
// So before the replica switches (LiveState asks its snapshot preparers), the carriers its LRU holds, most recently
// used first, up to CARRIER_CACHE_WARM_MAX of them, are read again from the *new* snapshot, READ_CHUNK numbers per
// read, into a cache of the new snapshot filled off to the side; the switch adopts it (one assignment) in the same
// synchronous step that makes the new snapshot the one served, so no check ever pairs one snapshot with the other's
// lookups. The outgoing snapshot is served meanwhile (its data stays in Redis for ~60 s after the next ingest), and
// the reading stops after CARRIER_CACHE_WARM_MS: whatever was read by then is adopted. A failed read gives up the
// carry-over (the caller logs it), and the switch happens with an empty cache, as before.
//
// The work is cut so checks keep flowing while it runs: no step of it holds the event loop for more than about a
// millisecond (a read's reply parsed; a slice of the cache filled), where reading 5,000 carriers in chunks of 1,000
// and adopting them in one synchronous fill held it for 10–12 ms at a time (bench/snapshot-flip.ts). The records
// are carried as the reply's strings and decoded on first use (SnapshotLookups.carry).
import type { SnapshotMeta } from '../core/carrier.js';
import type { RedisClient } from '../redis/connection.js';
import { carrierBucket, type RedisKeys } from '../store/keys.js';
import type { CarrierCache } from './carrier-cache.js';
import { readCarriers } from './carrier-reads.js';

export interface CarryOverOptions {
  /** At most this many carriers are read again (0: none, the cache starts empty). */
  max: number;
  /** Reading stops after this long; what was read by then is adopted. */
  budgetMs: number;
}

/** The carriers read from the new snapshot, ready to become the cache's at the switch. */
export interface CarryOver {
  /** Carriers read (found, ambiguous and not found alike). */
  carried: number;
  /** The LRU's entries that were to be read (those past the budget were not). */
  wanted: number;
  ms: number;
  /** Makes the cache the new snapshot's, holding the carried lookups; run at the moment of the switch. */
  adopt(): void;
}

/** Numbers per carrier-read.lua call, and MC numbers listed or lookups filled per turn: each about a millisecond. */
const READ_CHUNK = 250;
const SLICE = 2000;

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Reads the LRU's carriers from snapshot `next` (see above). Null when there is nothing to carry: an empty LRU, a
 * carry-over turned off, or a cache that already holds `next`. Rejects when a read fails.
 */
export async function carryOver(redis: RedisClient, keys: RedisKeys, cache: CarrierCache, next: SnapshotMeta,
  options: CarryOverOptions, now: () => number = Date.now): Promise<CarryOver | null> {
  const started = now();
  const recent = cache.recent();
  if (options.max === 0 || recent.version === next.version) return null;
  const mcs = await listRecent(recent.mcs, options.max);
  if (mcs.length === 0) return null;
  const records: Array<string | null> = [];
  for (let from = 0; from < mcs.length && now() - started < options.budgetMs; from += READ_CHUNK) {
    const chunk = mcs.slice(from, from + READ_CHUNK);
    const buckets = chunk.map((mc) => keys.carrierBucket(next.version, carrierBucket(mc)));
    for (const encoded of await readCarriers(redis, buckets, chunk)) records.push(encoded ?? null);
  }
  // Least recently used first, so the new LRU keeps the outgoing one's order of use.
  const prepared = cache.prepare(next.version);
  for (let index = records.length - 1; index >= 0; index -= 1) {
    prepared.carry(mcs[index] as string, records[index] as string | null);
    if (index % SLICE === 0 && index > 0) await nextTurn();
  }
  return { carried: records.length, wanted: mcs.length, ms: now() - started, adopt: () => cache.adopt(prepared) };
}

/**
 * Up to `limit` distinct MC numbers from the LRU's listing, SLICE per turn. Checks use the LRU between slices, and a
 * listing resumed after that can skip numbers or list some again (a number moved to the front meanwhile): harmless
 * here, as a skipped carrier is read when next asked for and a repeated one is kept once. The listing stops after
 * twice `limit` steps, so one that keeps being sent back to the front cannot run on.
 */
async function listRecent(listing: Iterator<string>, limit: number): Promise<string[]> {
  const mcs = new Set<string>();
  for (let steps = 0; mcs.size < limit && steps < 2 * limit;) {
    for (const sliceEnd = steps + SLICE; steps < sliceEnd && mcs.size < limit; steps += 1) {
      const listed = listing.next();
      if (listed.done === true) return [...mcs];
      mcs.add(listed.value);
    }
    if (mcs.size < limit) await nextTurn();
  }
  return [...mcs];
}
