// Guards an ingest must pass before its snapshot may replace the serving one. Pure: they compare what this ingest
// read with the serving snapshot's meta and throw ONE IngestError naming the source, its file and the numbers.
// A cut-off download, an empty file or a dropped list would otherwise unblock (or block) carriers wholesale.
import type { SnapshotMeta, SourceFreshness } from '../core/carrier.js';
import { SOURCE_NAMES, type SourceName } from '../core/ruleset.js';
import { IngestError } from './errors.js';

/** Largest allowed drop in a source's row count versus the serving snapshot, without --force. */
export const MAX_SHRINK = 0.1;
/** Largest share of authority dockets the census may leave uncovered, without --force. */
export const MAX_CENSUS_GAP = 0.05;

/** Sources the row guards skip: the broker's own list shrinks legitimately (a ban lifted is a row less). */
const UNGUARDED: ReadonlySet<SourceName> = new Set(['dnu']);

const fileOf = (source: SourceName, freshness: SourceFreshness | undefined) => freshness?.file?.split(',')[0] || `--${source.replace(/_/g, '-')}`;

/**
 * Per source: an empty file is refused (a do-not-use file only when the serving list was not empty); a source the serving snapshot has but this ingest leaves out is refused; a
 * row count more than `maxShrink` below the serving snapshot's for that source is refused. All unless `force`.
 * `only` limits the check to some sources (the census is checked after its pass, the others before it).
 */
export function checkSourceRows(
  next: Partial<Record<SourceName, SourceFreshness>>, serving: SnapshotMeta | null,
  options: { force: boolean; maxShrink?: number; only?: readonly SourceName[]; files?: ReadonlyArray<{ source: SourceName; path: string; rows: number }> },
): void {
  if (options.force) return;
  const maxShrink = options.maxShrink ?? MAX_SHRINK;
  const sources = options.only ?? SOURCE_NAMES;
  // Every file given, of every source (the do-not-use file and OFAC alias files too): no data rows is refused.
  // The do-not-use list of a broker with no bans is empty by right: accepted when the serving list was empty too
  // (or there was none); an empty file where the serving snapshot had entries is still refused (a cut download).
  const servingDnuEmpty = serving !== null && (serving.sources.dnu?.rows ?? 0) === 0;
  for (const file of options.files ?? []) {
    if (file.source === 'dnu' && servingDnuEmpty) continue;
    if (sources.includes(file.source) && file.rows === 0) {
      throw new IngestError(file.path, null, null, `${file.source}: the file has no data rows; check the download or re-run with --force`);
    }
  }
  for (const source of sources) {
    if (UNGUARDED.has(source)) continue;
    const now = next[source];
    const before = serving?.sources[source];
    if (now?.present && now.rows === 0) {
      throw new IngestError(fileOf(source, now), null, null, `${source}: the file has no data rows; check the download or re-run with --force`);
    }
    if (!before?.present || before.rows <= 0) continue;
    if (!now?.present) {
      throw new IngestError(`--${source.replace(/_/g, '-')}`, null, null,
        `${source}: the serving snapshot has this source (${before.rows} rows) and this ingest leaves it out; pass the file or re-run with --force`);
    }
    if (now.rows < before.rows * (1 - maxShrink)) {
      const drop = Math.round((1 - now.rows / before.rows) * 100);
      throw new IngestError(fileOf(source, now), null, null,
        `${source}: ${now.rows} rows is ${drop}% below the serving snapshot's ${before.rows} (limit ${Math.round(maxShrink * 100)}%); check the file or re-run with --force`);
    }
  }
}

/**
 * The census must cover the authority file it is joined with: every authority docket without a census row is
 * built as `usdot_inactive` (blocked), so a short census blocks carriers wholesale. More than `maxGap` of the
 * authority's dockets uncovered is refused unless `force`.
 */
export function checkCensusCoverage(
  censusFile: string, authorityDockets: number, uncovered: number, options: { force: boolean; maxGap?: number },
): void {
  const maxGap = options.maxGap ?? MAX_CENSUS_GAP;
  if (options.force || authorityDockets === 0 || uncovered <= authorityDockets * maxGap) return;
  const share = Math.round((uncovered / authorityDockets) * 100);
  throw new IngestError(censusFile, null, null,
    `census covers too little of the authority file: ${uncovered} of ${authorityDockets} authority dockets (${share}%) have no census row (limit ${Math.round(maxGap * 100)}%); check the file or re-run with --force`);
}
