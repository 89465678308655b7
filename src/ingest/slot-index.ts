// Compact join state for ~1M dockets: an open-addressing hash from an integer key (MC or DOT number) to a dense
// slot, so per-docket fields can live in typed arrays indexed by slot (struct of arrays). A Map of 1M small
// objects costs ~100 bytes per docket and, worse, lets V8's heap (and RSS) grow to several times that while
// the census streams; this costs ~25 bytes per key plus a few bytes per column.

/** Grows a typed array to at least `length` (doubling), keeping its contents; new cells hold `fill`. */
export function grown<T extends Float64Array | Int32Array | Uint8Array>(array: T, length: number, fill = 0): T {
  if (array.length >= length) return array;
  let size = Math.max(array.length * 2, 16);
  while (size < length) size *= 2;
  const next = new (array.constructor as new (n: number) => T)(size);
  next.set(array);
  if (fill !== 0) next.fill(fill, array.length);
  return next;
}

const EMPTY = -1;

/** 'mc': keys below 2^31 (MC dockets have at most 8 digits) stored in 4 bytes; 'dot': up to 10 digits, 8 bytes. */
export type KeyWidth = 'mc' | 'dot';

export class SlotIndex {
  /** Hash table: key per bucket (EMPTY = free) and the slot it maps to. */
  private keys: Float64Array | Int32Array;
  private slots: Int32Array;
  private mask: number;
  /** slot → key, for iteration in insertion order. */
  private keyOfSlot: Float64Array | Int32Array;
  private count = 0;

  constructor(private readonly width: KeyWidth, expected = 1 << 16) {
    let buckets = 16;
    while (buckets < expected * 2) buckets *= 2;
    this.keys = this.keyArray(buckets).fill(EMPTY);
    this.slots = new Int32Array(buckets);
    this.mask = buckets - 1;
    this.keyOfSlot = this.keyArray(16);
  }

  private keyArray(length: number): Float64Array | Int32Array {
    return this.width === 'mc' ? new Int32Array(length) : new Float64Array(length);
  }

  get size(): number {
    return this.count;
  }

  private bucket(key: number): number {
    // Mixes the low and high 32 bits (DOT numbers can exceed 2^31) with a multiplicative hash.
    let bucket = Math.imul((key | 0) ^ ((key / 4294967296) | 0), 0x9e3779b1) & this.mask;
    while (this.keys[bucket] !== EMPTY && this.keys[bucket] !== key) bucket = (bucket + 1) & this.mask;
    return bucket;
  }

  /** The key's slot, or -1. */
  get(key: number): number {
    const bucket = this.bucket(key);
    return this.keys[bucket] === EMPTY ? -1 : (this.slots[bucket] ?? -1);
  }

  has(key: number): boolean {
    return this.get(key) >= 0;
  }

  /** The key's slot, allocating the next one for a new key. */
  add(key: number): number {
    if (this.width === 'mc' && !(key >= 0 && key < 2 ** 31)) throw new RangeError(`MC key out of range: ${key}`);
    let bucket = this.bucket(key);
    if (this.keys[bucket] !== EMPTY) return this.slots[bucket] ?? -1;
    if ((this.count + 1) * 2 > this.keys.length) {
      this.rehash(this.keys.length * 2);
      bucket = this.bucket(key);
    }
    const slot = this.count++;
    this.keys[bucket] = key;
    this.slots[bucket] = slot;
    this.keyOfSlot = grown(this.keyOfSlot, this.count);
    this.keyOfSlot[slot] = key;
    return slot;
  }

  keyAt(slot: number): number {
    return this.keyOfSlot[slot] ?? EMPTY;
  }

  private rehash(buckets: number): void {
    this.keys = this.keyArray(buckets).fill(EMPTY);
    this.slots = new Int32Array(buckets);
    this.mask = buckets - 1;
    for (let slot = 0; slot < this.count; slot++) {
      const bucket = this.bucket(this.keyAt(slot));
      this.keys[bucket] = this.keyAt(slot);
      this.slots[bucket] = slot;
    }
  }
}
