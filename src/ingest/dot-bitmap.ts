// One bit per DOT number (grown to the largest seen: 12.5 MB at most for 8-digit numbers), to notice a census DOT
// met twice without a 2M-entry Set.
export class DotBitmap {
  private bits = new Uint8Array(1 << 16);

  /** Sets the bit of `dot`; returns whether it was already set. */
  testAndSet(dot: number): boolean {
    const byte = dot >>> 3;
    if (byte >= this.bits.length) {
      let size = this.bits.length;
      while (size <= byte) size *= 2;
      const next = new Uint8Array(size);
      next.set(this.bits);
      this.bits = next;
    }
    const mask = 1 << (dot & 7);
    const was = ((this.bits[byte] ?? 0) & mask) !== 0;
    this.bits[byte] = (this.bits[byte] ?? 0) | mask;
    return was;
  }
}
