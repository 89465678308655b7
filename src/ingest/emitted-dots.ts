// Census-join state: the DOT each MC was first written under (an MC met again under another DOT turns ambiguous).
// A Float64 column over the shared MC slot index instead of a Map of 1M entries (see slot-index.ts).
import { grown, SlotIndex } from './slot-index.js';

/** Column values: NOT_WRITTEN for a slot another table created, NaN for a carrier written without a DOT. */
const NOT_WRITTEN = -1;

export class EmittedDots {
  private dots = new Float64Array(0);

  constructor(private readonly index = new SlotIndex('mc')) {}

  /** undefined: not written yet; null: written without a DOT; else the first DOT. */
  firstDot(mc: number): number | null | undefined {
    const slot = this.index.get(mc);
    const dot = slot < 0 ? NOT_WRITTEN : (this.dots[slot] ?? NOT_WRITTEN);
    if (dot === NOT_WRITTEN) return undefined;
    return Number.isNaN(dot) ? null : dot;
  }

  has(mc: number): boolean {
    return this.firstDot(mc) !== undefined;
  }

  /** Every MC written, with its first DOT (null: written without one), in the order first written. */
  forEach(visit: (mc: number, dot: number | null) => void): void {
    for (let slot = 0; slot < this.index.size; slot++) {
      const dot = this.dots[slot];
      if (dot === undefined || dot === NOT_WRITTEN) continue;
      visit(this.index.keyAt(slot), Number.isNaN(dot) ? null : dot);
    }
  }

  record(mc: number, dot: number | null): void {
    const slot = this.index.add(mc);
    this.dots = grown(this.dots, slot + 1, NOT_WRITTEN);
    this.dots[slot] = dot ?? NaN;
  }
}
