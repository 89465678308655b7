// Compact per-docket authority state (see slot-index.ts): AuthorityInfo per MC as typed columns, and the
// DOT → MC dockets relation. get() materialises a plain object, so callers and tests read it like a Map.
import type { AuthorityStatus } from '../../core/carrier.js';
import { grown, SlotIndex } from '../slot-index.js';

export interface AuthorityInfo {
  dot: number | null;
  status: AuthorityStatus;
  /** The file flags a revocation in progress (legacy *_REV_PEND = Y) without giving a date. */
  revocationFlagged: boolean;
  bipdRequiredUsd: number | null;
  bipdOnFileUsd: number | null;
  /**
   * What the docket's active carrier authority covers, as AUTHORITY_KIND bits (property, household goods,
   * passengers): legacy Freight/HHG/Passenger flags; Motus the kinds of its active authorities (set by settleKinds).
   */
  covers: number;
}

/** Bits of AuthorityInfo.covers. Only property authority authorises general freight. */
export const AUTHORITY_KIND = { property: 1, household_goods: 2, passenger: 4 } as const;

/** An active authority that is not property authority: what it covers instead ('unknown' when the file says none). */
export function authorityScope(info: Pick<AuthorityInfo, 'status' | 'covers'>): 'passenger' | 'household_goods' | 'unknown' | null {
  if (info.status !== 'active' || (info.covers & AUTHORITY_KIND.property) !== 0) return null;
  if ((info.covers & AUTHORITY_KIND.household_goods) !== 0) return 'household_goods';
  if ((info.covers & AUTHORITY_KIND.passenger) !== 0) return 'passenger';
  return 'unknown';
}

/** Two readings of one docket: property only when every reading that says active says property (fail closed). */
export function mergedCovers(a: Pick<AuthorityInfo, 'status' | 'covers'>, b: Pick<AuthorityInfo, 'status' | 'covers'>): number {
  const active = [a, b].filter((info) => info.status === 'active');
  if (active.length === 0) return a.covers | b.covers;
  const others = active.reduce((bits, info) => bits | (info.covers & ~AUTHORITY_KIND.property), 0);
  return others | (active.every((info) => (info.covers & AUTHORITY_KIND.property) !== 0) ? AUTHORITY_KIND.property : 0);
}

const STATUSES: readonly AuthorityStatus[] = ['none', 'unknown', 'inactive', 'pending', 'active'];
/** Rank = index in STATUSES: the docket's carrier status is the best among its carrier authorities. */
const STATUS_RANK = Object.fromEntries(STATUSES.map((status, rank) => [status, rank])) as Record<AuthorityStatus, number>;

/** Status column value of a slot the shared MC index holds for another table (insurance, census-only MCs). */
const ABSENT = 255;

/**
 * AuthorityInfo per MC, stored as typed columns (NaN = null) so 1M dockets stay a few tens of MB. The MC → slot
 * index may be shared with the other per-MC tables (one hash table instead of three), so presence is a column.
 */
export class AuthorityByMc {
  private dot = new Float64Array(0);
  private status = new Uint8Array(0);
  private flagged = new Uint8Array(0);
  private required = new Float64Array(0);
  private onFile = new Float64Array(0);
  /** Motus: per authority kind (3 bits each: 0 unseen, else status rank + 1), the most restrictive status seen. */
  private kinds = new Int32Array(0);
  private covers = new Uint8Array(0);
  private count = 0;

  constructor(private readonly index = new SlotIndex('mc')) {}

  get size(): number {
    return this.count;
  }

  private slotOf(mc: number): number {
    const slot = this.index.get(mc);
    return slot >= 0 && (this.status[slot] ?? ABSENT) !== ABSENT ? slot : -1;
  }

  has(mc: number): boolean {
    return this.slotOf(mc) >= 0;
  }

  /** MCs in first-seen order. */
  *keys(): IterableIterator<number> {
    for (let slot = 0; slot < this.status.length; slot++) {
      if (this.status[slot] !== ABSENT) yield this.index.keyAt(slot);
    }
  }

  get(mc: number): AuthorityInfo | undefined {
    const slot = this.slotOf(mc);
    if (slot < 0) return undefined;
    return {
      dot: nullable(this.dot[slot]), status: STATUSES[this.status[slot] ?? 0] ?? 'none',
      revocationFlagged: this.flagged[slot] === 1, bipdRequiredUsd: nullable(this.required[slot]), bipdOnFileUsd: nullable(this.onFile[slot]),
      covers: this.covers[slot] ?? 0,
    };
  }

  /** Stores a docket's row; a later row of the same docket replaces it (legacy: the last row wins, as before). */
  set(mc: number, info: AuthorityInfo): void {
    const slot = this.index.add(mc);
    this.grow(slot + 1);
    if (this.status[slot] === ABSENT) this.count += 1;
    this.dot[slot] = info.dot ?? NaN;
    this.status[slot] = STATUS_RANK[info.status];
    this.flagged[slot] = info.revocationFlagged ? 1 : 0;
    this.required[slot] = info.bipdRequiredUsd ?? NaN;
    this.onFile[slot] = info.bipdOnFileUsd ?? NaN;
    this.covers[slot] = info.covers;
  }

  /**
   * Records one Motus authority row of a kind (the index of its OP_AUTH_TYPE pattern, < 10). The same kind met
   * again keeps the more restrictive status; returns true when the two rows disagreed.
   */
  addKindStatus(mc: number, kind: number, status: AuthorityStatus): boolean {
    const slot = this.slotOf(mc);
    if (slot < 0) return false;
    const shift = kind * 3;
    const packed = this.kinds[slot] ?? 0;
    const seen = (packed >>> shift) & 7;
    const rank = STATUS_RANK[status] + 1;
    const kept = seen === 0 ? rank : Math.min(seen, rank);
    this.kinds[slot] = (packed & ~(7 << shift)) | (kept << shift);
    return seen !== 0 && seen !== rank;
  }

  /**
   * After a Motus file: a docket's carrier status is the best status among its authority kinds, and what its active
   * kinds cover (`coversOfKind`: AUTHORITY_KIND bits per kind index) says whether any is property authority.
   */
  settleKinds(coversOfKind: readonly number[] = []): void {
    const active = STATUS_RANK.active + 1;
    for (let slot = 0; slot < this.kinds.length; slot++) {
      let packed = this.kinds[slot] ?? 0;
      if (packed === 0 || this.status[slot] === ABSENT) continue;
      let best = 0;
      let covers = 0;
      for (let kind = 0; packed !== 0; kind++, packed >>>= 3) {
        const rank = packed & 7;
        if (rank > best) best = rank;
        if (rank === active) covers |= coversOfKind[kind] ?? 0;
      }
      if (best - 1 > (this.status[slot] ?? 0)) this.status[slot] = best - 1;
      this.covers[slot] = covers;
    }
  }

  raiseStatus(mc: number, status: AuthorityStatus): void {
    const slot = this.slotOf(mc);
    if (slot >= 0 && STATUS_RANK[status] > (this.status[slot] ?? 0)) this.status[slot] = STATUS_RANK[status];
  }

  private grow(length: number): void {
    this.dot = grown(this.dot, length, NaN);
    this.status = grown(this.status, length, ABSENT);
    this.flagged = grown(this.flagged, length);
    this.required = grown(this.required, length, NaN);
    this.onFile = grown(this.onFile, length, NaN);
    this.covers = grown(this.covers, length);
    this.kinds = grown(this.kinds, length);
  }
}

function nullable(value: number | undefined): number | null {
  return value === undefined || Number.isNaN(value) ? null : value;
}

/**
 * DOT → MC dockets in first-seen order, as (dot, mc) pairs appended while the authority file loads and sorted by
 * DOT once on first lookup (binary search after that): 12 bytes per pair instead of a second hash table.
 */
export class McsByDot {
  private dots = new Float64Array(0);
  private mcs = new Int32Array(0);
  private count = 0;
  private sorted = true;

  add(dot: number, mc: number): void {
    this.dots = grown(this.dots, this.count + 1);
    this.mcs = grown(this.mcs, this.count + 1);
    if (this.count > 0 && (this.dots[this.count - 1] ?? 0) > dot) this.sorted = false;
    this.dots[this.count] = dot;
    this.mcs[this.count] = mc;
    this.count += 1;
  }

  get(dot: number): number[] | undefined {
    if (!this.sorted) this.sort();
    let low = 0;
    let high = this.count;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((this.dots[middle] ?? 0) < dot) low = middle + 1;
      else high = middle;
    }
    if (low >= this.count || this.dots[low] !== dot) return undefined;
    const mcs: number[] = [];
    for (let i = low; i < this.count && this.dots[i] === dot; i++) {
      const mc = this.mcs[i] ?? 0;
      if (!mcs.includes(mc)) mcs.push(mc);
    }
    return mcs;
  }

  /** Stable sort by DOT (ties keep insertion order, i.e. the order the MCs were first seen). */
  private sort(): void {
    const order = new Uint32Array(this.count);
    for (let i = 0; i < this.count; i++) order[i] = i;
    const dots = this.dots;
    order.sort((a, b) => (dots[a] ?? 0) - (dots[b] ?? 0) || a - b);
    const sortedDots = new Float64Array(this.count);
    const sortedMcs = new Int32Array(this.count);
    for (let i = 0; i < this.count; i++) {
      const from = order[i] ?? 0;
      sortedDots[i] = dots[from] ?? 0;
      sortedMcs[i] = this.mcs[from] ?? 0;
    }
    this.dots = sortedDots;
    this.mcs = sortedMcs;
    this.sorted = true;
  }
}
