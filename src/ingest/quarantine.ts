// Rows that cannot be read are set aside instead of refusing the whole ingest: one future-dated order or one empty
// name must not keep a day's data from every other carrier. The carrier a set-aside row belongs to (when its DOT
// or MC could be read) answers fail-closed with `carrier_record_unreadable`; the report lists every row. The ingest
// is refused only when a source's set-aside rows pass the configured share (checkQuarantine), and sanctions-list
// and do-not-use loaders never quarantine: an unreadable row there refuses the file.
import type { SourceName } from '../core/ruleset.js';
import { FileLevelError, IngestError } from './errors.js';

export interface QuarantinedRow {
  source: SourceName;
  file: string;
  row: number | null;
  field: string | null;
  why: string;
  mc: number | null;
  dot: number | null;
}

/** Default largest share of a source's rows that may be set aside before the ingest is refused. */
export const DEFAULT_MAX_QUARANTINE_SHARE = 0.005;

export class Quarantine {
  readonly rows: QuarantinedRow[] = [];
  private readonly byMc = new Map<number, string[]>();
  private readonly byDot = new Map<number, string[]>();

  /** Sets a row aside; `error` names its file, row, field and why. */
  add(source: SourceName, error: IngestError, key: { mc?: number | null; dot?: number | null }): void {
    const entry: QuarantinedRow = {
      source, file: error.file, row: error.row, field: error.field, why: error.why, mc: key.mc ?? null, dot: key.dot ?? null,
    };
    this.rows.push(entry);
    const field = `${source}.${error.field ?? 'row'}`;
    if (entry.mc !== null) push(this.byMc, entry.mc, field);
    if (entry.dot !== null) push(this.byDot, entry.dot, field);
  }

  /** The unreadable fields ("source.FIELD") of one carrier, by its MC and DOT. */
  fieldsOf(mc: number, dot: number | null): string[] {
    const fields = [...this.byMc.get(mc) ?? []];
    if (dot !== null) fields.push(...this.byDot.get(dot) ?? []);
    return fields;
  }

  count(source: SourceName): number {
    return this.rows.filter((row) => row.source === source).length;
  }
}

function push(map: Map<number, string[]>, key: number, field: string): void {
  const list = map.get(key);
  if (list) { if (!list.includes(field)) list.push(field); } else map.set(key, [field]);
}

/**
 * Runs `read` on one row; an IngestError it throws sets the row aside (the carrier named by `key()` fails closed)
 * instead of ending the ingest. Returns undefined for a set-aside row.
 */
export function readOrQuarantine<T>(
  quarantine: Quarantine | undefined, source: SourceName, read: () => T, key: () => { mc?: number | null; dot?: number | null },
): T | undefined {
  if (!quarantine) return read();
  try {
    return read();
  } catch (error) {
    if (!(error instanceof IngestError) || error instanceof FileLevelError) throw error;
    let identified: { mc?: number | null; dot?: number | null } = {};
    try { identified = key(); } catch { identified = {}; }
    quarantine.add(source, error, identified);
    return undefined;
  }
}

/** Refuses the ingest when a source set aside more than `maxShare` of its rows (one row is always allowed). */
export function checkQuarantine(quarantine: Quarantine, rowsOf: (source: SourceName) => number, maxShare: number): void {
  const sources = new Set(quarantine.rows.map((row) => row.source));
  for (const source of sources) {
    const count = quarantine.count(source);
    const rows = Math.max(1, rowsOf(source));
    if (count > 1 && count > rows * maxShare) {
      const first = quarantine.rows.find((row) => row.source === source)!;
      const where = [first.file, first.row === null ? null : `row ${first.row}`, first.field === null ? null : `field ${first.field}`]
        .filter(Boolean).join(', ');
      throw new IngestError(first.file, null, null,
        `${source}: ${count} of ${rows} rows could not be read (limit ${(maxShare * 100).toFixed(1)}%), the first ${where}: ${first.why}`);
    }
  }
}
