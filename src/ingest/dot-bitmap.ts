// One bit per number (a DOT or an MC; grown to the largest seen: 12.5 MB at most for 8-digit numbers), to notice a
// census DOT met twice without a 2M-entry Set, and to carry "not eligible" per MC from one snapshot to the next.
export class NumberBitmap {
  private bits: Uint8Array;

  constructor(from?: Buffer | null) {
    this.bits = from ? new Uint8Array(from) : new Uint8Array(1 << 16);
  }

  has(value: number): boolean {
    const byte = value >>> 3;
    return byte < this.bits.length && ((this.bits[byte] ?? 0) & (1 << (value & 7))) !== 0;
  }

  set(value: number, on = true): void {
    const byte = value >>> 3;
    if (byte >= this.bits.length) {
      if (!on) return;
      let size = this.bits.length;
      while (size <= byte) size *= 2;
      const next = new Uint8Array(size);
      next.set(this.bits);
      this.bits = next;
    }
    const mask = 1 << (value & 7);
    this.bits[byte] = on ? (this.bits[byte] ?? 0) | mask : (this.bits[byte] ?? 0) & ~mask;
  }

  /** Sets the bit of `value`; returns whether it was already set. */
  testAndSet(value: number): boolean {
    const was = this.has(value);
    this.set(value);
    return was;
  }

  toBuffer(): Buffer {
    let end = this.bits.length;
    while (end > 0 && this.bits[end - 1] === 0) end -= 1;
    return Buffer.from(this.bits.subarray(0, end));
  }
}
