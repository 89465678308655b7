// The report's CSV: RFC 4180 quoting plus OWASP CSV-injection neutralisation of caller-supplied cells.
// Hand-written (a dozen lines) rather than a formatter stream because lines are built per chunk in the worker
// and stored as finished text; the report endpoint only concatenates them.
import type { SourceEvidence } from '../core/evidence.js';
import type { Verdict } from '../core/verdict.js';
import type { NotScreenedReason, Outcome, StoredRow } from './types.js';

export const REPORT_COLUMNS = [
  'row', 'ref', 'mc', 'dot', 'uei', 'outcome', 'eligible', 'tier', 'reasons', 'decision_id', 'ruleset_version', 'data_as_of', 'evaluated_at',
  // Appended with decision records (existing columns keep their order): the snapshot screened against, the
  // per-reason evidence as JSON, and each source's as-of and file SHA-256 (`source as_of sha256[,sha256]`, `;`-separated).
  'snapshot_version', 'evidence', 'sources',
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
  /** The verdict behind a screened row (recorded as a decision); null for rows never screened. */
  verdict: Verdict | null;
}

// Every row of a job shares one snapshot, so its sources cell is formatted once per source list.
const sourcesCells = new WeakMap<readonly SourceEvidence[], string>();

/** `source as_of sha256[,sha256]` per source, `;`-separated; `-` where the snapshot did not record a hash. */
export function sourcesCell(sources: readonly SourceEvidence[]): string {
  let cell = sourcesCells.get(sources);
  if (cell === undefined) {
    cell = sources.filter((source) => source.present).map((source) => {
      const hashes = source.files.map((file) => file.sha256 ?? '-').join(',') || '-';
      return `${source.source} ${source.as_of ?? '-'} ${hashes}`;
    }).join(';');
    sourcesCells.set(sources, cell);
  }
  return cell;
}

function evidenceCells(verdict: Verdict | null): string[] {
  if (!verdict) return ['', '', ''];
  const { evidence } = verdict;
  return [evidence.snapshot_version ?? '', evidence.reasons.length > 0 ? JSON.stringify(evidence.reasons) : '', sourcesCell(evidence.sources)];
}

/** One report line (with its line end) for the 1-based row number, the input row and its result. */
export function reportLine(rowNumber: number, input: StoredRow, result: RowResult): string {
  const [mc, dot, uei, ref] = input;
  const callerCells = [ref, mc, dot, uei].map((cell) => quote(neutralise(cell ?? '')));
  const ourCells = [
    result.outcome, String(result.eligible), result.tier ?? '', result.reasons.join(';'), result.decision_id ?? '',
    result.ruleset_version === null ? '' : String(result.ruleset_version), result.data_as_of ?? '', result.evaluated_at ?? '',
    ...evidenceCells(result.verdict),
  ].map(quote);
  return `${rowNumber},${callerCells.join(',')},${ourCells.join(',')}${LINE_END}`;
}

/** A row that was never screened (missing or malformed MC, or the job ended first). */
export function notScreened(reason: NotScreenedReason): RowResult {
  return {
    outcome: 'not_screened', eligible: false, tier: null, reasons: [reason], decision_id: null,
    ruleset_version: null, data_as_of: null, evaluated_at: null, verdict: null,
  };
}
