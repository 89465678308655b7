// The carrier cache of the snapshot being served: MC number → lookup (found, ambiguous or not found).
//
// Keyed by the MC number alone and emptied when the snapshot version changes, instead of keyed by
// `${version}:${mc}`: that key was a fresh ~45-character string concatenated and hashed on every check (0.4 % of
// a cache-hot request and 1 % of a cache-cold one in `perf`), and entries of an older
// version are never read again anyway.
//
// Two stores. Carriers the snapshot holds go to the LRU. Numbers it does not hold
// are remembered apart, in a fixed table of numbers, so that random or mistyped MC numbers cannot hammer Redis
// either, without taking LRU entries:
// - a burst of unknown numbers (a roster of prospects, a scan) no longer evicts the carriers being dispatched;
// - remembering one costs a store into a preallocated Int32Array instead of an LRU insert and eviction (a Map
//   entry, its key string kept alive across scavenges).
// The table is direct-mapped: a number whose slot another unknown number takes is forgotten, and costs one Redis
// read the next time it is asked for. Only canonical numbers (1–8 digits, no leading zero: what
// normaliseMcNumber gives) fit it; anything else goes to the LRU as before.
import { LRUCache } from 'lru-cache';
import type { CarrierLookup } from '../core/carrier.js';
import { canonicalMcValue } from '../core/mc-number.js';
import { decodeCarrier, NOT_FOUND } from '../store/carrier-codec.js';

/** 2^16 slots: 256 KiB. */
const UNKNOWN_SLOT_BITS = 16;

/** The table slot of a number: a multiplicative hash, so runs of consecutive numbers spread over the table. */
function slotOf(value: number): number {
  return Math.imul(value, 0x9e3779b1) >>> (32 - UNKNOWN_SLOT_BITS);
}

/**
 * One snapshot's lookups: the LRU of carriers and the table of unknown numbers. The cache swaps in a new one when
 * the snapshot changes; a snapshot switch's carry-over fills one off to the side first (CarrierCache.prepare).
 */
export class SnapshotLookups {
  /** Lookups, or a carried carrier's encoded record, decoded on its first use (carry()). */
  readonly entries: LRUCache<string, CarrierLookup | string>;
  /**
   * Unknown numbers by slot (0: empty). A remembered number is answered with NOT_FOUND, the one lookup object
   * decodeCarrier gives every number a snapshot lacks: the very object (and verdict template) a Redis read gives.
   */
  private readonly unknown = new Int32Array(1 << UNKNOWN_SLOT_BITS);

  constructor(readonly version: string | null, max: number) {
    this.entries = new LRUCache({ max });
  }

  get(mc: string): CarrierLookup | undefined {
    const cached = this.entries.get(mc);
    if (cached !== undefined) return typeof cached === 'string' ? this.decodeCarried(mc, cached) : cached;
    const value = canonicalMcValue(mc);
    return value !== 0 && this.unknown[slotOf(value)] === value ? NOT_FOUND : undefined;
  }

  /**
   * Caches a carrier the carry-over read (its encoded record, or null when the snapshot lacks it). The record is
   * kept as the reply's one string and decoded when it is first asked for: decoding 20,000 records at once made
   * a dozen objects each that every scavenge of the switch had to copy.
   */
  carry(mc: string, encoded: string | null): void {
    if (encoded === null) this.set(mc, NOT_FOUND);
    else this.entries.set(mc, encoded);
  }

  set(mc: string, lookup: CarrierLookup): void {
    if (lookup === NOT_FOUND) {
      const value = canonicalMcValue(mc);
      if (value !== 0) {
        this.unknown[slotOf(value)] = value;
        return;
      }
    }
    this.entries.set(mc, lookup);
  }

  /** A carried record decoded, in place of its string; one that does not decode is forgotten (read again). */
  private decodeCarried(mc: string, encoded: string): CarrierLookup | undefined {
    let lookup: CarrierLookup;
    try {
      lookup = decodeCarrier(mc, encoded);
    } catch {
      // The Redis read that follows meets the same record and fails closed there (a degraded verdict).
      this.entries.delete(mc);
      return undefined;
    }
    this.entries.set(mc, lookup);
    return lookup;
  }
}

export class CarrierCache {
  private lookups: SnapshotLookups;

  constructor(private readonly max: number) {
    this.lookups = new SnapshotLookups(null, max);
  }

  /** The cached lookup of `mc` in snapshot `version`; undefined when it is not cached for that version. */
  get(version: string, mc: string): CarrierLookup | undefined {
    const { lookups } = this;
    return version === lookups.version ? lookups.get(mc) : undefined;
  }

  /** Caches a lookup read from snapshot `version`, first dropping every entry of another version. */
  set(version: string, mc: string, lookup: CarrierLookup): void {
    if (version !== this.lookups.version) this.lookups = new SnapshotLookups(version, this.max);
    this.lookups.set(mc, lookup);
  }

  /**
   * The LRU's MC numbers, most recently used first (lazily: listing 20,000 at once held the event loop for ~12 ms),
   * with the version they were read from: what a snapshot switch reads again (src/eligibility/cache-carry-over.ts).
   * Remembered unknown numbers are not listed; a number the new snapshot lacks costs one read when next asked for.
   */
  recent(): { version: string | null; mcs: IterableIterator<string> } {
    return { version: this.lookups.version, mcs: this.lookups.entries.keys() };
  }

  /** An empty cache of `version`, to be filled off to the side and then adopted (the carry-over). */
  prepare(version: string): SnapshotLookups {
    return new SnapshotLookups(version, this.max);
  }

  /** Makes `prepared` the cache, in place of everything it held: one assignment, at the moment of the switch. */
  adopt(prepared: SnapshotLookups): void {
    this.lookups = prepared;
  }
}
