// The carrier LRU of the snapshot being served: MC number → lookup (found, ambiguous or not found).
//
// Keyed by the MC number alone and emptied when the snapshot version changes, instead of keyed by
// `${version}:${mc}`: that key was a fresh ~45-character string concatenated and hashed on every check (0.4 % of
// a cache-hot request and 1 % of a cache-cold one in `perf`, round 6 in bench/README.md), and entries of an older
// version are never read again anyway.
import { LRUCache } from 'lru-cache';
import type { CarrierLookup } from '../core/carrier.js';

export class CarrierCache {
  private readonly entries: LRUCache<string, CarrierLookup>;
  private version: string | null = null;

  constructor(max: number) {
    this.entries = new LRUCache({ max });
  }

  /** The cached lookup of `mc` in snapshot `version`; undefined when it is not cached for that version. */
  get(version: string, mc: string): CarrierLookup | undefined {
    return version === this.version ? this.entries.get(mc) : undefined;
  }

  /** Caches a lookup read from snapshot `version`, first dropping every entry of another version. */
  set(version: string, mc: string, lookup: CarrierLookup): void {
    if (version !== this.version) {
      this.entries.clear();
      this.version = version;
    }
    this.entries.set(mc, lookup);
  }
}
