// What every source loader shares: a context (clock, progress, warnings) and per-file statistics for the
// final table. Skipped rows are counted by reason; they are normal (tombstones, FF/MX dockets, rescinded
// orders) and distinct from a parse failure, which aborts the ingest.
import { normaliseDocket, normaliseDotNumber } from '../../core/mc-number.js';
import type { CodedFields } from '../coded-fields.js';
import { FileLevelError } from '../errors.js';
import type { RowReader } from '../fields.js';
import type { Quarantine } from '../quarantine.js';
import type { SlotIndex } from '../slot-index.js';

export type AmountUnits = 'dollars' | 'thousands' | 'auto';

export interface LoadContext {
  /** ISO date of the ingest's "today": what is in the future (pending cancellation, SAM termination) or past. */
  today: string;
  /** The ingest's clock reading: a date recording a past event (filing, posting, serve date) beyond it is refused. */
  nowMs: number;
  /** Units of Motus amount columns (legacy files are always thousands). */
  insuranceUnits: AmountUnits;
  /** Bytes read so far, and the chunk just read (hashed for the meta's SHA-256). */
  onBytes: (bytes: number, chunk?: Buffer) => void;
  warn: (message: string) => void;
  /** MC → slot index shared by the per-MC tables of one ingest (authority, insurance, the census join). */
  mcSlots?: SlotIndex;
  /** Blank and unknown values of coded fields, counted for the change guards (a fresh tally when absent). */
  coded?: CodedFields;
  /** Unreadable rows are set aside here (the carrier fails closed) instead of refusing the ingest; absent: refused. */
  quarantine?: Quarantine;
  /** A BIPD amount above this (US dollars) cannot be real: the file is in the wrong units (default 50M). */
  maxBipdUsd?: number;
}

/** Largest BIPD amount a row may carry unless configured otherwise (INGEST_MAX_BIPD_USD). */
export const DEFAULT_MAX_BIPD_USD = 50_000_000;

/** A BIPD amount (dollars) checked against the ceiling: above it, the file is refused naming row and field. */
export function plausibleBipd(fields: RowReader, field: string, usd: number | null, context: LoadContext): number | null {
  const ceiling = context.maxBipdUsd ?? DEFAULT_MAX_BIPD_USD;
  if (usd !== null && usd > ceiling) {
    throw new FileLevelError(fields.file, fields.row, field, `BIPD amount $${usd.toLocaleString('en-US')} is above the ceiling $${ceiling.toLocaleString('en-US')} (INGEST_MAX_BIPD_USD); is the file in other units (--insurance-units)?`);
  }
  return usd;
}

export class SourceStats {
  rows = 0;
  readonly skipped = new Map<string, number>();
  /** Newest content date seen (ISO YYYY-MM-DD) in the fields that say how recent the file is; null when none. */
  newest: string | null = null;

  /** Records a date from a field that dates the file's content (see docs/ingest.md, "Data trust"). */
  seen(date: string | null): void {
    if (date !== null && (this.newest === null || date > this.newest)) this.newest = date;
  }

  skip(reason: string): void {
    this.skipped.set(reason, (this.skipped.get(reason) ?? 0) + 1);
  }

  get skippedTotal(): number {
    let total = 0;
    for (const count of this.skipped.values()) total += count;
    return total;
  }
}

/** MC docket → numeric key (compact Map keys); null for FF/MX or garbage. */
export function mcKey(raw: string): number | null {
  const mc = normaliseDocket(raw);
  return mc === null ? null : Number(mc);
}

export function dotKey(raw: string): number | null {
  const dot = normaliseDotNumber(raw);
  return dot === null ? null : Number(dot);
}

/** Legacy L&I amounts are thousands; Motus amounts are dollars (measured) though documented as thousands. */
export function toUsd(amount: number | null, units: AmountUnits): number | null {
  if (amount === null) return null;
  if (units === 'thousands') return amount * 1000;
  if (units === 'dollars') return amount;
  // auto: no real BIPD limit is under $10,000, so a small figure must be thousands ("750" = $750,000).
  return amount < 10_000 ? amount * 1000 : amount;
}

/** Keeps the earlier of two ISO dates (null-safe). */
export function earlier(a: string | null | undefined, b: string | null): string | null {
  if (!a) return b;
  if (!b) return a;
  return a <= b ? a : b;
}
