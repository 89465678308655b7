// The carrier cache of the snapshot being served: MC number → lookup (found, ambiguous or not found).
//
// Keyed by the MC number alone and emptied when the snapshot version changes, instead of keyed by
// `${version}:${mc}`: that key was a fresh ~45-character string concatenated and hashed on every check (0.4 % of
// a cache-hot request and 1 % of a cache-cold one in `perf`, round 6 in bench/HISTORY.md), and entries of an older
// version are never read again anyway.
//
// Two stores (round 11 in bench/HISTORY.md). Carriers the snapshot holds go to the LRU. Numbers it does not hold
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
import { NOT_FOUND } from '../store/carrier-codec.js';

/** 2^16 slots: 256 KiB. */
const UNKNOWN_SLOT_BITS = 16;

/** The table slot of a number: a multiplicative hash, so runs of consecutive numbers spread over the table. */
function slotOf(value: number): number {
  return Math.imul(value, 0x9e3779b1) >>> (32 - UNKNOWN_SLOT_BITS);
}

export class CarrierCache {
  private readonly entries: LRUCache<string, CarrierLookup>;
  /**
   * Unknown numbers by slot (0: empty). A remembered number is answered with NOT_FOUND, the one lookup object
   * decodeCarrier gives every number a snapshot lacks: the very object (and verdict template) a Redis read gives.
   */
  private readonly unknown = new Int32Array(1 << UNKNOWN_SLOT_BITS);
  private version: string | null = null;

  constructor(max: number) {
    this.entries = new LRUCache({ max });
  }

  /** The cached lookup of `mc` in snapshot `version`; undefined when it is not cached for that version. */
  get(version: string, mc: string): CarrierLookup | undefined {
    if (version !== this.version) return undefined;
    const cached = this.entries.get(mc);
    if (cached !== undefined) return cached;
    const value = canonicalMcValue(mc);
    return value !== 0 && this.unknown[slotOf(value)] === value ? NOT_FOUND : undefined;
  }

  /** Caches a lookup read from snapshot `version`, first dropping every entry of another version. */
  set(version: string, mc: string, lookup: CarrierLookup): void {
    if (version !== this.version) {
      this.entries.clear();
      this.unknown.fill(0);
      this.version = version;
    }
    if (lookup === NOT_FOUND) {
      const value = canonicalMcValue(mc);
      if (value !== 0) {
        this.unknown[slotOf(value)] = value;
        return;
      }
    }
    this.entries.set(mc, lookup);
  }
}
