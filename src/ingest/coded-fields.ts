// Coded fields (a status, a flag, a rating) are read against a closed set of values per layout. A value outside it
// is never guessed at: the row fails closed (the loader decides how) and the value is counted here, with the
// blanks, so the ingest can judge the file by the share of rows each coded field could not say anything about
// (guards in change-guards.ts: a field blank or unknown for a large share of rows refuses the file).

/** Per coded field ("census.STATUS_CODE"): rows read, blank values, values outside the field's closed set. */
export interface FieldShare {
  rows: number;
  blank: number;
  unknown: number;
  /** Up to three unknown values seen, for the refusal line. */
  examples?: string[];
}

export class CodedFields {
  readonly fields = new Map<string, FieldShare>();

  /** Counts one value of `key`; returns 'blank', 'unknown' or 'known'. */
  note(key: string, value: string, known: ReadonlySet<string>): 'blank' | 'unknown' | 'known' {
    let share = this.fields.get(key);
    if (!share) {
      share = { rows: 0, blank: 0, unknown: 0 };
      this.fields.set(key, share);
    }
    share.rows += 1;
    if (value === '') { share.blank += 1; return 'blank'; }
    if (known.has(value)) return 'known';
    share.unknown += 1;
    share.examples ??= [];
    if (share.examples.length < 3 && !share.examples.includes(value)) share.examples.push(value.slice(0, 40));
    return 'unknown';
  }

  toJSON(): Record<string, FieldShare> {
    return Object.fromEntries([...this.fields].sort(([a], [b]) => a.localeCompare(b)));
  }
}

/** Closed value sets per layout (data-formats.md: census §2.1, L&I Carrier §3, Motus §3.3, OOS §4). */
export const CODES = {
  censusStatus: new Set(['A', 'I']),
  censusHazmat: new Set(['Y', 'N']),
  censusRating: new Set(['S', 'C', 'U']),
  censusOperation: new Set(['A', 'B', 'C']),
  censusDocketStatus: new Set(['A', 'I']),
  legacyAuthorityStat: new Set(['A', 'I', 'N']),
  legacyFlag: new Set(['Y', 'N']),
  motusAuthorityStatus: new Set(['ACTIVE', 'INACTIVE', 'PENDING', 'WITHDRAWN']),
  oosStatus: new Set(['ACTIVE', 'INACTIVE', 'RESCINDED']),
} as const;
