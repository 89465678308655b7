// `carrier-eligibility ingest`: builds one complete snapshot version from files on disk, then flips
// snapshot:current atomically. Any failure (parse error, missing column, shrink guard) aborts with ONE line,
// removes the partial version and leaves the current snapshot serving. A killed ingest leaves only an
// unreferenced version in snapshot:versions, which the next ingest removes.
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { RedisClient } from '../redis/connection.js';
import type { CarrierRecord, SnapshotMeta } from '../core/carrier.js';
import { carrierReasons } from '../core/decide.js';
import type { Reason } from '../core/reasons.js';
import { DEFAULT_RULE_SET, SOURCE_NAMES, type RuleSet } from '../core/ruleset.js';
import type { RedisKeys } from '../store/keys.js';
import {
  acquireIngestLock, cleanupSnapshots, newSnapshotVersion, RETIRE_GRACE_MS, SnapshotWriter,
} from '../store/snapshot-writer.js';
import { buildRecord, type CarrierIdentity, type JoinedSources } from './build.js';
import { EmittedDots } from './emitted-dots.js';
import { IngestError } from './errors.js';
import { checkReadable, fileAsOf, loadSources, type FileReport, type IngestFiles } from './load-sources.js';
import { silentProgress, type ProgressReporter } from './progress.js';
import { loadAuthorityNames } from './sources/authority.js';
import { readCensus, type CensusRow } from './sources/census.js';
import { SourceStats, type AmountUnits } from './sources/common.js';

export type { IngestFiles } from './load-sources.js';

export interface IngestOptions {
  files: IngestFiles;
  /** 'now', an ISO date/time, or undefined (the census and authority files' own dates, the older of the two). */
  asOf?: string;
  force?: boolean;
  insuranceUnits?: AmountUnits;
  /** Merge the live Redis DNU hash (default true). */
  useRedisDnu?: boolean;
  nowMs?: number;
  graceMs?: number;
  /** Largest allowed drop in carrier count versus the current snapshot (default 0.10). */
  maxShrink?: number;
  progress?: ProgressReporter;
  /** Rule set the final table's "flags by reason" is computed with (default: the built-in default). */
  rules?: RuleSet;
}

export interface IngestReport {
  version: string;
  previous: string | null;
  meta: SnapshotMeta;
  files: Array<FileReport | { source: 'census'; file: string; stats: SourceStats }>;
  carriers: number;
  ambiguous: number;
  reasons: Partial<Record<Reason, number>>;
  eligible: number;
  warnings: string[];
  removedVersions: string[];
  durationMs: number;
}

/** Lets listpack hashes hold our compact records; ignored where CONFIG is disabled (managed Redis). */
async function raiseListpackValueLimit(redis: RedisClient, warn: (m: string) => void): Promise<void> {
  try {
    const current = await redis.config('GET', 'hash-max-listpack-value') as string[];
    if (Number(current[1] ?? 0) < 256) await redis.config('SET', 'hash-max-listpack-value', '256');
  } catch {
    warn('CONFIG SET hash-max-listpack-value 256 refused; snapshot buckets may use more memory');
  }
}

function resolveAsOf(asOf: string | undefined, nowMs: number, fallback: string): string {
  if (asOf === undefined) return fallback;
  if (asOf === 'now') return new Date(nowMs).toISOString();
  const ms = Date.parse(asOf.length === 10 ? `${asOf}T00:00:00Z` : asOf);
  if (Number.isNaN(ms)) throw new IngestError('--as-of', null, null, `not a date: "${asOf}"`);
  return new Date(ms).toISOString();
}

export async function runIngest(redis: RedisClient, keys: RedisKeys, options: IngestOptions): Promise<IngestReport> {
  const started = Date.now();
  const nowMs = options.nowMs ?? started;
  const today = new Date(nowMs).toISOString().slice(0, 10);
  const progress = options.progress ?? silentProgress;
  const warnings: string[] = [];
  const warn = (message: string) => { warnings.push(message); progress.log(`warning: ${message}`); };
  await checkReadable(options.files);

  const release = await acquireIngestLock(redis, keys);
  const version = newSnapshotVersion(nowMs);
  const writer = new SnapshotWriter(redis, keys, version);
  try {
    const removedVersions = await cleanupSnapshots(redis, keys, nowMs, undefined, warn);
    await raiseListpackValueLimit(redis, warn);
    const loaded = await loadSources(redis, keys, {
      files: options.files, today, nowMs, insuranceUnits: options.insuranceUnits ?? 'auto',
      useRedisDnu: options.useRedisDnu ?? true, progress, warn,
    });
    await writer.begin(nowMs);
    const censusStats = new SourceStats();
    const counts = await writeCarriers(writer, loaded.joined, options, censusStats, progress, options.rules ?? DEFAULT_RULE_SET, nowMs);

    const current = await redis.get(keys.snapshotCurrent);
    const currentMeta = current ? await redis.get(keys.snapshotMeta(current)) : null;
    const previousCount = currentMeta ? (JSON.parse(currentMeta) as SnapshotMeta).carrier_count : 0;
    const maxShrink = options.maxShrink ?? 0.1;
    if (!options.force && previousCount > 0 && counts.carriers < previousCount * (1 - maxShrink)) {
      const drop = Math.round((1 - counts.carriers / previousCount) * 100);
      throw new IngestError(options.files.census, null, null,
        `carrier count ${counts.carriers} is ${drop}% below the serving snapshot's ${previousCount} (limit ${maxShrink * 100}%); check the files or re-run with --force`);
    }

    const sources = { ...loaded.freshness };
    sources.census = { present: true, as_of: await fileAsOf(options.files.census), rows: censusStats.rows, file: basename(options.files.census) };
    for (const name of SOURCE_NAMES) sources[name] ??= { present: false, as_of: null, rows: 0 };
    const ownDate = [sources.census.as_of, sources.authority?.as_of].filter((d): d is string => !!d).sort()[0] ?? new Date(nowMs).toISOString();
    const meta: Omit<SnapshotMeta, 'version'> = {
      data_as_of: resolveAsOf(options.asOf, nowMs, ownDate),
      created_at: new Date(nowMs).toISOString(),
      carrier_count: counts.carriers,
      sources,
    };
    const previous = await writer.commit(meta, Date.now(), options.graceMs ?? RETIRE_GRACE_MS);
    removedVersions.push(...await cleanupSnapshots(redis, keys, Date.now(), version, warn));
    return {
      version, previous, meta: { ...meta, version },
      files: [...loaded.reports, { source: 'census', file: options.files.census, stats: censusStats }],
      ...counts, warnings, removedVersions, durationMs: Date.now() - started,
    };
  } catch (error) {
    await writer.abort().catch(() => undefined);
    throw error;
  } finally {
    await release().catch(() => undefined);
  }
}

interface WriteCounts {
  carriers: number;
  ambiguous: number;
  eligible: number;
  reasons: Partial<Record<Reason, number>>;
}

async function writeCarriers(
  writer: SnapshotWriter, sources: JoinedSources, options: IngestOptions, stats: SourceStats,
  progress: ProgressReporter, rules: RuleSet, nowMs: number,
): Promise<WriteCounts> {
  // MC → first DOT seen; an MC seen under a second DOT is rewritten as ambiguous (HSET overwrites).
  const emitted = new EmittedDots(sources.mcSlots);
  const ambiguous = new Map<number, Set<number | null>>();
  const counts: WriteCounts = { carriers: 0, ambiguous: 0, eligible: 0, reasons: {} };
  const reasonsOf = new Map<number, Reason[]>();
  // Most flagged carriers share a handful of reason lists: keep one array per distinct list.
  const reasonLists = new Map<string, Reason[]>();
  const interned = (reasons: Reason[]) => {
    const key = reasons.join(',');
    const known = reasonLists.get(key);
    if (known) return known;
    reasonLists.set(key, reasons);
    return reasons;
  };
  const tally = (mc: number, reasons: Reason[] | null) => {
    const previous = reasonsOf.get(mc);
    if (previous) for (const reason of previous) counts.reasons[reason] = (counts.reasons[reason] ?? 1) - 1;
    if (reasons === null) return;
    for (const reason of reasons) counts.reasons[reason] = (counts.reasons[reason] ?? 0) + 1;
  };

  const emit = async (mc: number, census: CensusRow | null, identity: CarrierIdentity) => {
    const first = emitted.firstDot(mc);
    if (first === undefined) {
      emitted.record(mc, identity.dot);
      const record: CarrierRecord = buildRecord(mc, census, identity, sources);
      const reasons = carrierReasons(record, rules, nowMs);
      if (reasons.length === 0) counts.eligible += 1;
      else tally(mc, reasons);
      // Only carriers with reasons are remembered, so this map stays small (it undoes counts if turned ambiguous).
      if (reasons.length > 0) reasonsOf.set(mc, interned(reasons));
      counts.carriers += 1;
      await writer.put(String(mc), record);
      return;
    }
    if (first === identity.dot) return;
    let dots = ambiguous.get(mc);
    if (!dots) {
      dots = new Set([first]);
      ambiguous.set(mc, dots);
      counts.ambiguous += 1;
      if (reasonsOf.has(mc)) tally(mc, null); else counts.eligible -= 1;
      reasonsOf.delete(mc);
      counts.reasons.ambiguous_mc_number = (counts.reasons.ambiguous_mc_number ?? 0) + 1;
    }
    dots.add(identity.dot);
    await writer.put(String(mc), { ambiguous: [...dots].map((dot) => String(dot ?? '')) });
  };

  const bar = progress.file('census', (await stat(options.files.census)).size, () => stats.rows);
  const context = { today: new Date(nowMs).toISOString().slice(0, 10), insuranceUnits: options.insuranceUnits ?? 'auto', warn: progress.log, onBytes: bar.bytes };
  for await (const row of readCensus(options.files.census, context, stats)) {
    const mcs = new Set(row.mcs);
    for (const mc of sources.authority.mcsByDot.get(row.dot) ?? []) mcs.add(mc);
    if (mcs.size === 0) { stats.skip('no MC docket'); continue; }
    for (const mc of mcs) await emit(mc, row, { dot: row.dot, legalName: row.legalName, dbaName: row.dbaName });
  }
  bar.done(stats.rows);

  // Dockets in the authority file that no census row covers: still found (fail closed: no census → usdot_inactive).
  const orphans = new Set<number>();
  for (const mc of sources.authority.byMc.keys()) if (!emitted.has(mc)) orphans.add(mc);
  const names = await loadAuthorityNames(options.files.authority, orphans);
  for (const mc of orphans) {
    const name = names.get(mc);
    await emit(mc, null, { dot: sources.authority.byMc.get(mc)?.dot ?? null, legalName: name?.legal || '(not in census)', dbaName: name?.dba ?? null });
  }
  return counts;
}
