// Judging a file by what it changes, not by how many rows it has. Pure: compares what this ingest read (coded field
// shares, ...) with what the serving snapshot recorded, and returns one row per guard for the table printed after
// every ingest. A guard beyond its limit refuses the ingest unless the operator accepted THAT guard by name
// (`--accept GUARD`, repeatable); there is no switch that accepts them all.
import type { FieldShare } from './coded-fields.js';
import { IngestError } from './errors.js';

export interface GuardRow {
  /** Stable name the operator passes to --accept, e.g. "blank:census.SAFETY_RATING". */
  guard: string;
  before: string;
  after: string;
  limit: string;
  verdict: 'ok' | 'refused' | 'accepted';
  /** The file the guard is about (for the refusal line). */
  file?: string;
}

export interface ChangeLimits {
  /** Largest share of a coded field's values outside its closed set (default 0.01). */
  maxUnknownShare: number;
  /** Largest rise of a coded field's blank share against the serving snapshot, in share points (default 0.05). */
  maxBlankRise: number;
}

export const DEFAULT_CHANGE_LIMITS: ChangeLimits = { maxUnknownShare: 0.01, maxBlankRise: 0.05 };

/** Coded fields that are never blank in a sound file: judged on their own when the serving snapshot has no shares. */
const NEVER_BLANK = new Set(['census.STATUS_CODE', 'census.HM_IND', 'oos.STATUS', 'authority.COMMON_STAT', 'authority.CONTRACT_STAT', 'authority.OP_AUTH_STATUS']);

const pct = (share: number) => `${(share * 100).toFixed(1)}%`;

export function codedFieldGuards(
  now: Record<string, FieldShare>, before: Record<string, FieldShare> | undefined, limits: ChangeLimits, fileOf: (key: string) => string,
): GuardRow[] {
  const rows: GuardRow[] = [];
  for (const [key, share] of Object.entries(now)) {
    if (share.rows === 0) continue;
    const old = before?.[key];
    const unknown = share.unknown / share.rows;
    const oldUnknown = old && old.rows > 0 ? old.unknown / old.rows : null;
    const examples = share.examples?.length ? ` (${share.examples.map((e) => `"${e}"`).join(', ')})` : '';
    rows.push({
      guard: `unknown:${key}`, before: oldUnknown === null ? '-' : pct(oldUnknown), after: `${pct(unknown)}${unknown > 0 ? examples : ''}`,
      limit: `≤ ${pct(limits.maxUnknownShare)}`, verdict: unknown > limits.maxUnknownShare ? 'refused' : 'ok', file: fileOf(key),
    });
    const blank = share.blank / share.rows;
    const oldBlank = old && old.rows > 0 ? old.blank / old.rows : null;
    const base = oldBlank ?? (NEVER_BLANK.has(key) ? 0 : null);
    if (base === null) {
      rows.push({ guard: `blank:${key}`, before: '-', after: pct(blank), limit: 'no serving share', verdict: 'ok', file: fileOf(key) });
      continue;
    }
    rows.push({
      guard: `blank:${key}`, before: oldBlank === null ? '-' : pct(oldBlank), after: pct(blank),
      limit: `≤ ${pct(base + limits.maxBlankRise)}`, verdict: blank - base > limits.maxBlankRise ? 'refused' : 'ok', file: fileOf(key),
    });
  }
  return rows;
}

/** A refusal by one or more change guards: the first line names the file and guard; `rows` is the whole table. */
export class GuardRefusal extends IngestError {
  constructor(file: string, why: string, readonly rows: GuardRow[]) {
    super(file, null, null, why);
  }
}

/**
 * Marks the guards the operator accepted; throws a GuardRefusal naming the first guard still refused (and how many
 * more). Returns the rows and the accept names that matched no refused guard (the caller warns about those).
 */
export function enforceGuards(rows: GuardRow[], accepted: readonly string[]): { rows: GuardRow[]; unused: string[] } {
  const names = new Set(accepted);
  const used = new Set<string>();
  for (const row of rows) {
    if (row.verdict === 'refused' && names.has(row.guard)) {
      row.verdict = 'accepted';
      used.add(row.guard);
    }
  }
  const refused = rows.filter((row) => row.verdict === 'refused');
  if (refused.length > 0) {
    const first = refused[0]!;
    const more = refused.length > 1 ? ` (and ${refused.length - 1} more guard(s); see the table)` : '';
    throw new GuardRefusal(first.file ?? 'ingest', `${first.guard}: ${first.before} → ${first.after}, limit ${first.limit}; check the file or accept this change with --accept ${first.guard}${more}`, rows);
  }
  return { rows, unused: [...names].filter((name) => !used.has(name)) };
}

/** The guard table printed after every ingest (and with a refusal). */
export function formatGuardTable(rows: GuardRow[]): string {
  const shown = rows.filter((row) => row.verdict !== 'ok' || !row.guard.startsWith('blank:') || row.after !== '0.0%');
  const header = ['guard', 'serving', 'this ingest', 'limit', 'verdict'];
  const lines = shown.map((row) => [row.guard, row.before, row.after, row.limit, row.verdict]);
  const widths = header.map((title, i) => Math.max(title.length, ...lines.map((line) => (line[i] ?? '').length)));
  const format = (cells: string[]) => cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  ').trimEnd();
  return [format(header), ...lines.map(format)].join('\n');
}

/** Eligible count, tiers and reasons of one snapshot's carriers as its ingest judged them (stored in the meta). */
export interface VerdictMix {
  carriers: number;
  eligible: number;
  tiers: Record<string, number>;
  reasons: Record<string, number>;
}

/** A carrier the candidate snapshot makes eligible that the serving one did not, and why it was not. */
export interface Unblocked {
  mc: string;
  /** The reasons the serving snapshot's record gave (empty when it could not be read back). */
  was: string[];
  /** The watch-list entries the serving record's hits came from that this ingest's lists no longer hold. */
  removed?: string[];
}

export interface VerdictLimits {
  /** Largest fall of the eligible count, and largest rise of one reason's count, as a share of carriers (default 0.05). */
  maxVerdictShift: number;
  /** Largest number of carriers moving to eligible, as a share of carriers (default 0.005; at least 5 carriers). */
  maxNewlyEligible: number;
}

export const DEFAULT_VERDICT_LIMITS: VerdictLimits = { maxVerdictShift: 0.05, maxNewlyEligible: 0.005 };

/** Reasons that come from a sanctions list: a carrier leaving one needs its own acceptance (`unblocked:MC…`). */
const SANCTIONS = new Set(['ofac_sdn_match', 'possible_ofac_match', 'ofac_consolidated_match', 'sam_exclusion', 'possible_sam_exclusion']);

export function verdictGuards(
  now: VerdictMix, before: VerdictMix | undefined, unblocked: readonly Unblocked[], newlyEligible: number, limits: VerdictLimits, file: string,
): GuardRow[] {
  const rows: GuardRow[] = [];
  const carriers = Math.max(1, now.carriers);
  if (before) {
    const fall = (before.eligible - now.eligible) / Math.max(1, before.carriers);
    rows.push({
      guard: 'eligible_drop', before: String(before.eligible), after: String(now.eligible), limit: `fall ≤ ${pct(limits.maxVerdictShift)} of carriers`,
      verdict: fall > limits.maxVerdictShift ? 'refused' : 'ok', file,
    });
    for (const reason of new Set([...Object.keys(now.reasons), ...Object.keys(before.reasons)])) {
      const was = before.reasons[reason] ?? 0;
      const is = now.reasons[reason] ?? 0;
      if (was === is) continue;
      rows.push({
        guard: `reason:${reason}`, before: String(was), after: String(is), limit: `rise ≤ ${pct(limits.maxVerdictShift)} of carriers`,
        verdict: (is - was) / carriers > limits.maxVerdictShift ? 'refused' : 'ok', file,
      });
    }
  }
  const allowed = Math.max(5, Math.floor(limits.maxNewlyEligible * carriers));
  rows.push({
    guard: 'newly_eligible', before: '-', after: String(newlyEligible), limit: `≤ ${allowed}`,
    verdict: newlyEligible > allowed ? 'refused' : 'ok', file,
  });
  for (const carrier of unblocked) {
    const listed = carrier.was.filter((reason) => SANCTIONS.has(reason));
    if (listed.length === 0) continue;
    const removed = carrier.removed?.length ? ` (${carrier.removed.join('; ')} removed)` : '';
    rows.push({
      guard: `unblocked:MC${carrier.mc}`, before: listed.join(','), after: `eligible${removed}`, limit: 'a sanctions hit lifted needs its own acceptance',
      verdict: 'refused', file,
    });
  }
  return rows;
}

/** Amount fields whose median is compared with the serving snapshot's (a file in other units moves it wholesale). */
export const MEDIAN_FIELDS = ['insurance.bipd_on_file_usd', 'insurance.bipd_required_usd'] as const;

/** Counts of each value of one amount field; its median without keeping every value (amounts repeat a lot). */
export class AmountTally {
  private readonly counts = new Map<number, number>();
  private total = 0;

  add(value: number | null | undefined): void {
    if (value === null || value === undefined || !(value > 0)) return;
    this.counts.set(value, (this.counts.get(value) ?? 0) + 1);
    this.total += 1;
  }

  /** The lower median; null when no carrier has an amount. */
  median(): number | null {
    if (this.total === 0) return null;
    let seen = 0;
    for (const value of [...this.counts.keys()].sort((a, b) => a - b)) {
      seen += this.counts.get(value) ?? 0;
      if (seen * 2 >= this.total) return value;
    }
    return null;
  }
}

/**
 * Plausibility by distribution: an amount field whose median moved by `maxFactor` or more against the serving
 * snapshot (either way) refuses, as `median:<field>`. A file re-exported in dollars instead of thousands, or read
 * with the wrong --insurance-units, moves every amount 1,000×; real insurance markets move the median by percents.
 */
export function medianGuards(
  now: Record<string, number>, before: Record<string, number> | undefined, maxFactor: number, fileOf: (key: string) => string,
): GuardRow[] {
  const rows: GuardRow[] = [];
  const usd = (value: number) => `$${Math.round(value).toLocaleString('en-US')}`;
  for (const [key, median] of Object.entries(now)) {
    const old = before?.[key];
    if (old === undefined || !(old > 0) || !(median > 0)) {
      rows.push({ guard: `median:${key}`, before: old === undefined ? '-' : usd(old), after: usd(median), limit: 'no serving median', verdict: 'ok', file: fileOf(key) });
      continue;
    }
    const factor = Math.max(median / old, old / median);
    rows.push({
      guard: `median:${key}`, before: usd(old), after: usd(median), limit: `< ${maxFactor}× either way`,
      verdict: factor >= maxFactor ? 'refused' : 'ok', file: fileOf(key),
    });
  }
  return rows;
}
