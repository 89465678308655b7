// The report's CSV: RFC 4180 quoting plus OWASP CSV-injection neutralisation of caller-supplied cells.
// Hand-written (a dozen lines) rather than a formatter stream because lines are built per chunk in the worker
// and stored as finished text; the report endpoint only concatenates them.
import type { NotScreenedReason, Outcome, StoredRow } from './types.js';

export const REPORT_COLUMNS = [
  'row', 'ref', 'mc', 'dot', 'uei', 'outcome', 'eligible', 'tier', 'reasons', 'decision_id', 'ruleset_version', 'data_as_of', 'evaluated_at',
] as const;

export const LINE_END = '\r\n';
export const REPORT_HEADER = `${REPORT_COLUMNS.join(',')}${LINE_END}`;

const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

/** OWASP: a cell a spreadsheet could read as a formula gets a leading apostrophe. */
export function neutralise(cell: string): string {
  return FORMULA_START.test(cell) ? `'${cell}` : cell;
}

/** RFC 4180: cells with a quote, comma, CR or LF are quoted, inner quotes doubled. */
export function quote(cell: string): string {
  return NEEDS_QUOTES.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell;
}

/** What the worker learned about one row; every cell is already a plain string. */
export interface RowResult {
  outcome: Outcome;
  eligible: boolean;
  tier: string | null;
  reasons: readonly string[];
  decision_id: string | null;
  ruleset_version: number | null;
  data_as_of: string | null;
  evaluated_at: string | null;
}

/** One report line (with its line end) for the 1-based row number, the input row and its result. */
export function reportLine(rowNumber: number, input: StoredRow, result: RowResult): string {
  const [mc, dot, uei, ref] = input;
  const callerCells = [ref, mc, dot, uei].map((cell) => quote(neutralise(cell ?? '')));
  const ourCells = [
    result.outcome, String(result.eligible), result.tier ?? '', result.reasons.join(';'), result.decision_id ?? '',
    result.ruleset_version === null ? '' : String(result.ruleset_version), result.data_as_of ?? '', result.evaluated_at ?? '',
  ].map(quote);
  return `${rowNumber},${callerCells.join(',')},${ourCells.join(',')}${LINE_END}`;
}

/** A row that was never screened (missing or malformed MC, or the job ended first). */
export function notScreened(reason: NotScreenedReason): RowResult {
  return {
    outcome: 'not_screened', eligible: false, tier: null, reasons: [reason], decision_id: null,
    ruleset_version: null, data_as_of: null, evaluated_at: null,
  };
}
