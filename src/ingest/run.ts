// `carrier-eligibility ingest`: builds one complete snapshot version from files on disk, then flips
// snapshot:current atomically. Any failure (parse error, missing column, shrink guard) aborts with ONE line,
// removes the partial version and leaves the current snapshot serving. A killed ingest leaves only an
// unreferenced version in snapshot:versions, which the next ingest removes.
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { RedisClient } from '../redis/connection.js';
import type { CarrierRecord, IdentitySignals, SharedContactFact, SnapshotMeta, WatchlistHit } from '../core/carrier.js';
import { carrierReasons, tierOf, type Tier } from '../core/decide.js';
import type { Reason } from '../core/reasons.js';
import { parseInstant } from '../core/dates.js';
import { DEFAULT_RULE_SET, SOURCE_NAMES, type RuleSet, type SourceName } from '../core/ruleset.js';
import { decodeCarrier } from '../store/carrier-codec.js';
import { carrierBucket, type RedisKeys } from '../store/keys.js';
import { acquireIngestLock, newSnapshotVersion, RETIRE_GRACE_MS, SnapshotWriter, type WritePacing } from '../store/snapshot-writer.js';
import { DEFAULT_MAX_VERSIONS, sweepForIngest } from '../store/snapshot-retention.js';
import { buildRecord, matchItem, type CarrierIdentity, type JoinedSources } from './build.js';
import { NameMatchWorker } from '../match/match-pool.js';
import { checkHeadroom, estimateVersionBytes } from './headroom.js';
import { EmittedDots } from './emitted-dots.js';
import { IngestError } from './errors.js';
import { checkCensusCoverage, checkSourceRows, MAX_SHRINK } from './guards.js';
import {
  checkDistinctFiles, checkReadable, loadSources, resolveFileAsOf, StreamingHash, type FileRecord, type FileReport, type IngestFiles,
} from './load-sources.js';
import { silentProgress, type ProgressReporter } from './progress.js';
import {
  AmountTally, codedFieldGuards, DEFAULT_CHANGE_LIMITS, DEFAULT_VERDICT_LIMITS, enforceGuards, MEDIAN_FIELDS, medianGuards, verdictGuards,
  type ChangeLimits, type GuardRow, type Unblocked, type VerdictLimits, type VerdictMix,
} from './change-guards.js';
import { CodedFields } from './coded-fields.js';
import { checkQuarantine, DEFAULT_MAX_QUARANTINE_SHARE, Quarantine, type QuarantinedRow } from './quarantine.js';
import { DEFAULT_MAX_BIPD_USD } from './sources/common.js';
import { loadAuthorityNames } from './sources/authority.js';
import { mergeCensusRows, readCensus, type CensusRow } from './sources/census.js';
import { NumberBitmap } from './dot-bitmap.js';
import type { IdentityObservation, IdentitySink } from './identity-sink.js';
import { SourceStats, type AmountUnits } from './sources/common.js';
import { decodeSnapshotMeta } from '../store/stored-json.js';
import { decodeListEntries, describeRemoved, diffList, encodeListEntries, removedFor, WATCH_LISTS, type RemovedEntry } from './list-diff.js';
import { isOneOf } from '../core/one-of.js';

export type { IngestFiles } from './load-sources.js';

export interface IngestOptions {
  files: IngestFiles;
  /** 'now', an ISO date/time, or undefined (the census and authority files' own dates, the older of the two). */
  asOf?: string;
  /**
   * Per-source as-of given by the operator (YYYY-MM-DD or RFC 3339 with a zone), for files whose format carries no
   * date (OFAC, the authority files, InsHist). Checked strictly; a date in the future is refused.
   */
  sourceAsOf?: Partial<Record<SourceName, string>>;
  force?: boolean;
  insuranceUnits?: AmountUnits;
  /** Merge the live Redis DNU hash (default true). */
  useRedisDnu?: boolean;
  nowMs?: number;
  graceMs?: number;
  /** Records per pipeline and records per second written (INGEST_WRITE_BATCH, INGEST_WRITE_RATE); default unpaced. */
  pacing?: WritePacing;
  /** Most snapshot versions kept in Redis, the serving one and this ingest's included (SNAPSHOT_MAX_VERSIONS). */
  maxVersions?: number;
  /** Largest allowed drop in carrier count, and in each source's rows, versus the current snapshot (default 0.10). */
  maxShrink?: number;
  /** Largest share of authority dockets the census may leave uncovered (default 0.05). */
  maxCensusGap?: number;
  progress?: ProgressReporter;
  /** Rule set the final table's "flags by reason" is computed with (default: the built-in default). */
  rules?: RuleSet;
  /** Limits of the plausibility, quarantine and change guards (config: INGEST_*). */
  limits?: Partial<IngestLimits>;
  /** TTL of the ingest lock (refreshed every third of it while the ingest runs; default 30 s). */
  lockTtlMs?: number;
  /** Change guards the operator accepts for this ingest, by name (`--accept GUARD`). */
  accept?: readonly string[];
  /** Identity history (src/identity): sees every census carrier, records changes after the flip. */
  identity?: IdentitySink;
  /**
   * Where census carriers' names are matched (INGEST_MATCH_WORKER): 'on' a worker thread beside the census pass,
   * 'off' the ingest's own thread, 'auto' (default) the worker for a census of MATCH_WORKER_MIN_BYTES or more.
   */
  matchWorker?: MatchWorkerMode;
}

export type MatchWorkerMode = 'auto' | 'on' | 'off';

/** A census this large (~50,000 carriers) has its names matched on a worker thread under 'auto'. */
const MATCH_WORKER_MIN_BYTES = 16 * 1024 * 1024;

export interface IngestLimits extends ChangeLimits, VerdictLimits {
  maxBipdUsd: number;
  /** An amount field's median moving this many times (either way) against the serving snapshot refuses (`median:<field>`). */
  maxMedianFactor: number;
  maxQuarantineShare: number;
  /** Largest share of a watch list's entries that may disappear against the serving snapshot (`removed:<list>`). */
  maxListRemovedShare: number;
}

export const DEFAULT_INGEST_LIMITS: IngestLimits = {
  ...DEFAULT_CHANGE_LIMITS, ...DEFAULT_VERDICT_LIMITS, maxBipdUsd: DEFAULT_MAX_BIPD_USD, maxQuarantineShare: DEFAULT_MAX_QUARANTINE_SHARE,
  maxMedianFactor: 5, maxListRemovedShare: 0.01,
};

export interface IngestReport {
  version: string;
  previous: string | null;
  meta: SnapshotMeta;
  files: Array<FileReport | { source: 'census'; file: string; stats: SourceStats }>;
  /** Every file read: name, SHA-256, bytes, rows and where its as-of came from. */
  fileRecords: FileRecord[];
  carriers: number;
  ambiguous: number;
  reasons: Partial<Record<Reason, number>>;
  eligible: number;
  warnings: string[];
  removedVersions: string[];
  durationMs: number;
  /** Every change guard with the serving and candidate values (printed after every ingest). */
  guards: GuardRow[];
  /** Rows set aside as unreadable; their carriers answer carrier_record_unreadable. */
  quarantined: QuarantinedRow[];
  /** Carriers that move from blocked or review to eligible against the serving snapshot, with what they were (first 1,000). */
  newlyEligible: { count: number; carriers: Unblocked[] };
  /** Every watch-list entry the serving snapshot had and this ingest's lists do not (file, id, name). */
  removedEntries: RemovedEntry[];
  /** Identity changes recorded (with IngestOptions.identity). */
  identity?: { changes: number; carriers: number };
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

/** --as-of: 'now' or a strict date; one in the future (beyond the clock skew) would keep the data from ever ageing. */
function resolveAsOf(asOf: string | undefined, nowMs: number, fallback: string): string {
  if (asOf === undefined) return fallback;
  const parsed = parseInstant(asOf, { nowMs, allowNow: true, notFuture: true });
  if ('error' in parsed) throw new IngestError('--as-of', null, null, parsed.error);
  return parsed.iso;
}

/** Validates the operator's per-source as-of flags before any work is done. */
export function parseSourceAsOf(given: Partial<Record<string, string>>, nowMs: number): Partial<Record<SourceName, string>> {
  const out: Partial<Record<SourceName, string>> = {};
  for (const [name, value] of Object.entries(given)) {
    if (value === undefined) continue;
    if (!isOneOf(SOURCE_NAMES, name) || name === 'dnu') {
      throw new IngestError('--as-of-source', null, null, `unknown source "${name}" (one of ${SOURCE_NAMES.filter((s) => s !== 'dnu').join(', ')})`);
    }
    const parsed = parseInstant(value, { nowMs, notFuture: true });
    if ('error' in parsed) throw new IngestError('--as-of-source', null, name, parsed.error);
    out[name] = parsed.iso;
  }
  return out;
}

export async function runIngest(redis: RedisClient, keys: RedisKeys, options: IngestOptions): Promise<IngestReport> {
  const started = Date.now();
  const nowMs = options.nowMs ?? started;
  const today = new Date(nowMs).toISOString().slice(0, 10);
  const progress = options.progress ?? silentProgress;
  const warnings: string[] = [];
  const warn = (message: string) => { warnings.push(message); progress.log(`warning: ${message}`); };
  // Flags first: a bad date is refused before any file is read or any lock taken.
  const sourceAsOf = parseSourceAsOf(options.sourceAsOf ?? {}, nowMs);
  resolveAsOf(options.asOf, nowMs, '');
  await checkReadable(options.files);

  const limits: IngestLimits = { ...DEFAULT_INGEST_LIMITS, ...options.limits };
  const coded = new CodedFields();
  const quarantine = new Quarantine();
  const release = await acquireIngestLock(redis, keys, options.lockTtlMs);
  const version = newSnapshotVersion(nowMs);
  const writer = new SnapshotWriter(redis, keys, version, options.pacing);
  let begun = false;
  try {
    const maxVersions = options.maxVersions ?? DEFAULT_MAX_VERSIONS;
    // Room for this ingest's version first: orphans, retired versions past their grace, then the oldest retired.
    const removedVersions = await sweepForIngest(redis, keys, { nowMs, maxVersions, own: version, reserve: 1 }, warn);
    await raiseListpackValueLimit(redis, warn);
    const loaded = await loadSources(redis, keys, {
      files: options.files, today, nowMs, insuranceUnits: options.insuranceUnits ?? 'auto',
      useRedisDnu: options.useRedisDnu ?? true, progress, warn, sourceAsOf, coded, quarantine, maxBipdUsd: limits.maxBipdUsd,
    });
    for (const source of Object.keys(sourceAsOf) as SourceName[]) {
      if (source !== 'census' && !loaded.freshness[source]) warn(`--as-of-source ${source} given, but no ${source} file was`);
    }
    const force = options.force ?? false;
    const maxShrink = options.maxShrink ?? MAX_SHRINK;
    const current = await redis.get(keys.snapshotCurrent);
    const currentRaw = current ? await redis.get(keys.snapshotMeta(current)) : null;
    const currentMeta = currentRaw && current ? decodeSnapshotMeta(currentRaw, keys.snapshotMeta(current)) : null;
    // Every side source against the one it replaces, before the (long) census pass.
    checkSourceRows(loaded.freshness, currentMeta, { force, maxShrink, only: SOURCE_NAMES.filter((name) => name !== 'census'), files: loaded.files });
    if (loaded.problems[0]) throw loaded.problems[0];
    // Room for one more version under maxmemory, before anything is written.
    await checkHeadroom(redis, await estimateVersionBytes(redis, keys, current, loaded.joined.authority.byMc));

    await writer.begin(nowMs);
    begun = true;
    // Each list's entries go with the version (the next ingest names what disappeared); the serving ones are compared.
    const listRows: GuardRow[] = [];
    const removedEntries: RemovedEntry[] = [];
    for (const list of WATCH_LISTS) {
      const mine = loaded.lists[list];
      if (!mine) continue;
      await redis.set(keys.snapshotListEntries(version, list), encodeListEntries(mine.entries));
      const servingBlob = current ? await redis.getBuffer(keys.snapshotListEntries(current, list)) : null;
      const diff = diffList(list, servingBlob ? decodeListEntries(servingBlob) : null, mine.entries, limits.maxListRemovedShare, mine.file);
      listRows.push(diff.row);
      removedEntries.push(...diff.removed);
    }
    const censusStats = new SourceStats();
    const censusHash = new StreamingHash(() => undefined);
    const servingBits = current ? await redis.getBuffer(keys.snapshotNotEligible(current)) : null;
    const rules = options.rules ?? DEFAULT_RULE_SET;
    const counts = await writeCarriers(writer, loaded.joined, options, censusStats, progress, rules, nowMs, censusHash,
      { coded, quarantine, maxBipdUsd: limits.maxBipdUsd, warn }, servingBits ? new NumberBitmap(servingBits) : null);
    const unblocked = current ? await whyWasBlocked(redis, keys, current, counts.newlyEligible, rules, nowMs, removedEntries) : [];

    const censusSize = (await stat(options.files.census)).size;
    const censusFile: FileRecord = {
      source: 'census', path: options.files.census, name: basename(options.files.census),
      sha256: await censusHash.digest(options.files.census, censusSize), bytes: censusSize, rows: censusStats.rows,
      contentAsOf: censusStats.newest,
    };
    const ingestedAt = new Date(nowMs).toISOString();
    const sources = { ...loaded.freshness };
    sources.census = {
      present: true, as_of: null, rows: censusStats.rows, file: censusFile.name, ingested_at: ingestedAt,
      files: [{ name: censusFile.name, sha256: censusFile.sha256, bytes: censusFile.bytes, rows: censusFile.rows }],
    };
    checkSourceRows(sources, currentMeta, { force, maxShrink, only: ['census'], files: [censusFile] });
    checkDistinctFiles([...loaded.files, censusFile]);
    checkQuarantine(quarantine, (source) => sources[source]?.rows ?? 0, limits.maxQuarantineShare);
    const fileOf = (key: string) => {
      const source = key.split('.')[0] as SourceName;
      return source === 'census' ? options.files.census : loaded.files.find((file) => file.source === source)?.path ?? source;
    };
    const medians: Record<string, number> = {};
    for (const [key, tally] of Object.entries(counts.amounts)) {
      const median = tally.median();
      if (median !== null) medians[key] = median;
    }
    const verdicts: VerdictMix = { carriers: counts.carriers, eligible: counts.eligible, tiers: { ...counts.tiers }, reasons: { ...counts.reasons } as Record<string, number> };
    const guards = enforceGuards([
      ...codedFieldGuards(coded.toJSON(), currentMeta?.fields, limits, fileOf),
      // The amounts' medians before the verdicts: a file in other units is the cause, the verdicts that move its effect.
      ...medianGuards(medians, currentMeta?.medians, limits.maxMedianFactor, fileOf),
      // A list that lost entries is the cause; the carriers it stops blocking (unblocked:MC…) its effect.
      ...listRows,
      ...verdictGuards(verdicts, currentMeta?.verdicts, unblocked, counts.newlyEligible.size, limits, options.files.census),
    ], options.accept ?? []);
    for (const name of guards.unused) warn(`--accept ${name}: no such guard was beyond its limit in this ingest`);
    if (censusFile.rows > 0) Object.assign(sources.census, resolveFileAsOf('census', censusFile, sourceAsOf.census, nowMs, warn));
    checkCensusCoverage(options.files.census, loaded.joined.authority.byMc.size, counts.uncovered, { force, maxGap: options.maxCensusGap });
    const previousCount = currentMeta?.carrier_count ?? 0;
    if (!force && previousCount > 0 && counts.carriers < previousCount * (1 - maxShrink)) {
      const drop = Math.round((1 - counts.carriers / previousCount) * 100);
      throw new IngestError(options.files.census, null, null,
        `carrier count ${counts.carriers} is ${drop}% below the serving snapshot's ${previousCount} (limit ${maxShrink * 100}%); check the files or re-run with --force`);
    }
    for (const name of SOURCE_NAMES) sources[name] ??= { present: false, as_of: null, rows: 0 };
    const ownDate = [sources.census.as_of, sources.authority?.as_of].filter((d): d is string => !!d).sort()[0] ?? new Date(nowMs).toISOString();
    const meta: Omit<SnapshotMeta, 'version'> = {
      data_as_of: resolveAsOf(options.asOf, nowMs, ownDate),
      created_at: new Date(nowMs).toISOString(),
      carrier_count: counts.carriers,
      sources,
      fields: Object.fromEntries(Object.entries(coded.toJSON()).map(([key, { rows, blank, unknown }]) => [key, { rows, blank, unknown }])),
      quarantined_rows: quarantine.rows.length,
      verdicts,
      medians,
    };
    const previous = await writer.commit(meta, Date.now(), options.graceMs ?? RETIRE_GRACE_MS, counts.notEligible.toBuffer(), release.token);
    removedVersions.push(...await sweepForIngest(redis, keys, { nowMs: Date.now(), maxVersions, own: version, reserve: 0 }, warn));
    const identity = options.identity
      ? await options.identity.commit({ version, asOf: (sources.census.as_of ?? meta.data_as_of).slice(0, 10) })
      : undefined;
    return {
      ...(identity ? { identity } : {}),
      version, previous, meta: { ...meta, version },
      files: [...loaded.reports, { source: 'census', file: options.files.census, stats: censusStats }],
      fileRecords: [...loaded.files, censusFile],
      ...counts, warnings, removedVersions, durationMs: Date.now() - started, guards: guards.rows, quarantined: quarantine.rows,
      newlyEligible: { count: counts.newlyEligible.size, carriers: unblocked }, removedEntries,
    };
  } catch (error) {
    // Nothing to remove before begin(): refusals found while loading the side files leave Redis untouched.
    if (begun) await writer.abort().catch(() => undefined);
    throw error;
  } finally {
    await release().catch(() => undefined);
  }
}

/** Census rows handed on together (one identity round trip each). */
const CHUNK_ROWS = 512;

interface WriteCounts {
  /** Authority dockets no census row covered (built as usdot_inactive). */
  uncovered: number;
  carriers: number;
  ambiguous: number;
  eligible: number;
  reasons: Partial<Record<Reason, number>>;
  tiers: Record<Tier, number>;
  /** MCs eligible now that the serving snapshot's ingest found not eligible. */
  newlyEligible: Set<number>;
  /** Bit per MC not eligible in this snapshot (stored with it for the next ingest). */
  notEligible: NumberBitmap;
  /** Amount fields tallied for their medians (the plausibility guard). */
  amounts: Record<(typeof MEDIAN_FIELDS)[number], AmountTally>;
}

async function writeCarriers(
  writer: SnapshotWriter, sources: JoinedSources, options: IngestOptions, stats: SourceStats,
  progress: ProgressReporter, rules: RuleSet, nowMs: number, hash: StreamingHash,
  checks: { coded: CodedFields; quarantine: Quarantine; maxBipdUsd: number; warn: (message: string) => void },
  servingNotEligible: NumberBitmap | null,
): Promise<WriteCounts> {
  // MC → first DOT seen; an MC seen under a second DOT is rewritten as ambiguous (HSET overwrites).
  const emitted = new EmittedDots(sources.mcSlots);
  const ambiguous = new Map<number, Set<number | null>>();
  const counts: WriteCounts = {
    uncovered: 0, carriers: 0, ambiguous: 0, eligible: 0, reasons: {},
    tiers: { preferred: 0, standard: 0, conditional: 0, blocked: 0 }, newlyEligible: new Set(), notEligible: new NumberBitmap(),
    amounts: { 'insurance.bipd_on_file_usd': new AmountTally(), 'insurance.bipd_required_usd': new AmountTally() },
  };
  const preferredBits = new NumberBitmap();
  /** The verdict mix moves with every write: `previous` undoes a carrier's earlier tier (ambiguous, merged duplicates). */
  const account = (mc: number, record: CarrierRecord | null, reasons: Reason[], undo: boolean) => {
    if (undo) {
      const before = reasonsOf.get(mc);
      const old = before ? tierOf(null, before, rules, nowMs) : preferredBits.has(mc) ? 'preferred' : 'standard';
      counts.tiers[old] -= 1;
    }
    const tier = record === null ? 'conditional' : tierOf(record, reasons, rules, nowMs);
    counts.tiers[tier] += 1;
    preferredBits.set(mc, tier === 'preferred');
    const eligible = record !== null && reasons.length === 0;
    counts.notEligible.set(mc, !eligible);
    if (eligible && servingNotEligible?.has(mc)) counts.newlyEligible.add(mc);
    else counts.newlyEligible.delete(mc);
  };
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

  const emit = async (mc: number, census: CensusRow | null, identity: CarrierIdentity, signals?: IdentitySignals, hits?: WatchlistHit[]) => {
    const first = emitted.firstDot(mc);
    if (first === undefined) {
      emitted.record(mc, identity.dot);
      const record: CarrierRecord = buildRecord(mc, census, identity, sources, signals, hits);
      const reasons = carrierReasons(record, rules, nowMs);
      account(mc, record, reasons, false);
      counts.amounts['insurance.bipd_on_file_usd'].add(record.insurance.bipd_on_file_usd);
      counts.amounts['insurance.bipd_required_usd'].add(record.insurance.bipd_required_usd);
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
      account(mc, null, ['ambiguous_mc_number'], true);
      if (reasonsOf.has(mc)) tally(mc, null); else counts.eligible -= 1;
      reasonsOf.delete(mc);
      counts.reasons.ambiguous_mc_number = (counts.reasons.ambiguous_mc_number ?? 0) + 1;
    }
    dots.add(identity.dot);
    await writer.put(String(mc), { ambiguous: [...dots].map((dot) => String(dot ?? '')) });
  };

  /** Rewrites a carrier already written (its verdict mix moves with it). */
  const rewrite = async (mc: number, record: CarrierRecord) => {
    const reasons = carrierReasons(record, rules, nowMs);
    account(mc, record, reasons, true);
    if (!reasonsOf.has(mc)) counts.eligible -= 1;
    tally(mc, reasons.length > 0 ? reasons : null);
    if (reasons.length > 0) reasonsOf.set(mc, interned(reasons));
    else { reasonsOf.delete(mc); counts.eligible += 1; }
    await writer.put(String(mc), record);
  };

  /** Rewrites a carrier already written from a census row with a merged row (duplicated DOT), keeping its identity signals. */
  const replace = async (mc: number, census: CensusRow, identity: CarrierIdentity) => {
    const [written] = await writer.readBack([String(mc)]);
    const before = decodeCarrier(String(mc), written ?? null);
    const signals = before.kind === 'found' ? before.record.identity : undefined;
    if (emitted.firstDot(mc) !== identity.dot || ambiguous.has(mc)) return emit(mc, census, identity, signals);
    await rewrite(mc, buildRecord(mc, census, identity, sources, signals));
  };

  /** Puts on each census carrier's record the phones and emails it shares (the index needs the whole census first). */
  const addSharedContacts = async (shared: ReadonlyMap<number, SharedContactFact[]>) => {
    if (shared.size === 0) return;
    const mcs: number[] = [];
    emitted.forEach((mc, dot) => { if (dot !== null && shared.has(dot) && !ambiguous.has(mc)) mcs.push(mc); });
    for (let start = 0; start < mcs.length; start += 1000) {
      const group = mcs.slice(start, start + 1000);
      const written = await writer.readBack(group.map(String));
      for (const [i, mc] of group.entries()) {
        const lookup = decodeCarrier(String(mc), written[i] ?? null);
        const facts = lookup.kind === 'found' && lookup.record.dot !== null ? shared.get(Number(lookup.record.dot)) : undefined;
        if (lookup.kind !== 'found' || facts === undefined) continue;
        await rewrite(mc, { ...lookup.record, identity: { ...lookup.record.identity, shared: facts } });
      }
    }
  };

  const bar = progress.file('census', (await stat(options.files.census)).size, () => stats.rows);
  const context = {
    today: new Date(nowMs).toISOString().slice(0, 10), nowMs, insuranceUnits: options.insuranceUnits ?? 'auto', warn: progress.log,
    onBytes: (bytes: number, chunk?: Buffer) => { bar.bytes(bytes); hash.onBytes(bytes, chunk); },
    coded: checks.coded, quarantine: checks.quarantine, maxBipdUsd: checks.maxBipdUsd,
  };
  // A DOT met twice is set aside and resolved after the pass (most restrictive reading of all its rows).
  const seenDots = new NumberBitmap();
  const duplicated = new Set<number>();
  // Rows go out in chunks so the identity history compares a chunk's carriers in one round trip. With a matching
  // worker, a chunk's names are sent to it as soon as the chunk is read, and the chunk is written once the one
  // before it is: the worker matches while this thread parses the next chunk and writes the previous one.
  const matcher = await startMatcher(sources, options, checks.warn);
  let chunk: CensusRow[] = [];
  let writing: Promise<void> = Promise.resolve();
  const matchChunk = (rows: CensusRow[]): Promise<WatchlistHit[][] | null> | null => {
    if (matcher.worker === null) return null;
    return matcher.worker.match(rows.map((row) => matchItem(row, identityOf(row))))
      .catch((error: unknown) => {
        // Given up: this chunk and the rest are matched on this thread (the same hits, more slowly).
        if (matcher.worker !== null) checks.warn(`name matching moves to the ingest's own thread: ${(error as Error).message}`);
        matcher.worker = null;
        return null;
      });
  };
  const flush = async () => {
    const rows = chunk;
    chunk = [];
    const hits = matchChunk(rows);
    await writing;
    writing = writeChunk(rows, hits);
    // Marked handled now; awaited before the next chunk is written and after the last.
    writing.catch(() => undefined);
  };
  const writeChunk = async (rows: CensusRow[], matching: Promise<WatchlistHit[][] | null> | null) => {
    const dockets = rows.map((row) => {
      const mcs = new Set(row.mcs);
      for (const mc of sources.authority.mcsByDot.get(row.dot) ?? []) mcs.add(mc);
      return mcs;
    });
    const signals = options.identity
      ? await options.identity.observe(rows.map((row, i): IdentityObservation => ({
        dot: row.dot, identity: row.identity, active: row.status === 'A' ? true : row.status === 'I' ? false : null, mcs: [...dockets[i] ?? []],
      })), nowMs)
      : null;
    const hits = matching === null ? null : await matching;
    for (const [i, row] of rows.entries()) {
      const mcs = dockets[i] ?? new Set<number>();
      if (mcs.size === 0) { stats.skip('no MC docket'); continue; }
      for (const mc of mcs) await emit(mc, row, identityOf(row), signals?.get(row.dot), hits?.[i]);
    }
  };
  try {
    for await (const row of readCensus(options.files.census, context, stats)) {
      if (seenDots.testAndSet(row.dot)) { duplicated.add(row.dot); continue; }
      chunk.push(row);
      if (chunk.length >= CHUNK_ROWS) await flush();
    }
    await flush();
    await writing;
  } finally {
    await matcher.close();
  }
  bar.done(stats.rows);

  if (duplicated.size > 0) {
    // Second read of the census for the few duplicated DOTs only; their carriers are rewritten from the merge.
    const rows = new Map<number, CensusRow[]>();
    const quiet = { ...context, onBytes: () => undefined, coded: new CodedFields(), quarantine: new Quarantine() };
    for await (const row of readCensus(options.files.census, quiet, new SourceStats())) {
      if (duplicated.has(row.dot)) rows.set(row.dot, [...rows.get(row.dot) ?? [], row]);
    }
    let conflicting = 0;
    for (const [dot, group] of rows) {
      const merged = mergeCensusRows(group);
      if (merged.conflicting) conflicting += 1;
      const mcs = new Set(merged.row.mcs);
      for (const mc of sources.authority.mcsByDot.get(dot) ?? []) mcs.add(mc);
      for (const mc of mcs) await replace(mc, merged.row, { dot, legalName: merged.row.legalName, dbaName: merged.row.dbaName });
    }
    checks.warn(`${options.files.census}: ${duplicated.size} DOT number(s) listed more than once (${conflicting} with different facts, e.g. DOT ${[...duplicated].slice(0, 3).join(', ')}); the most restrictive reading of their rows was kept`);
  }

  if (options.identity) await addSharedContacts(await options.identity.shareIndex(writer.version, writer.keys));

  // Dockets in the authority file that no census row covers: still found (fail closed: no census → usdot_inactive).
  const orphans = new Set<number>();
  for (const mc of sources.authority.byMc.keys()) if (!emitted.has(mc)) orphans.add(mc);
  counts.uncovered = orphans.size;
  const names = await loadAuthorityNames(options.files.authority, orphans);
  if (options.files.secondAuthority) {
    for (const [mc, name] of await loadAuthorityNames(options.files.secondAuthority, orphans)) if (!names.has(mc)) names.set(mc, name);
  }
  for (const mc of orphans) {
    const name = names.get(mc);
    await emit(mc, null, { dot: sources.authority.byMc.get(mc)?.dot ?? null, legalName: name?.legal || '(not in census)', dbaName: name?.dba ?? null });
  }
  return counts;
}

/** The serving snapshot's reasons for carriers this ingest makes eligible (read back for the first 1,000). */
async function whyWasBlocked(
  redis: RedisClient, keys: RedisKeys, version: string, mcs: ReadonlySet<number>, rules: RuleSet, nowMs: number,
  removedEntries: readonly RemovedEntry[],
): Promise<Unblocked[]> {
  const listed = [...mcs].sort((a, b) => a - b).slice(0, 1000).map(String);
  if (listed.length === 0) return [];
  const pipeline = redis.pipeline();
  for (const mc of listed) pipeline.hget(keys.carrierBucket(version, carrierBucket(mc)), mc);
  const replies = (await pipeline.exec()) ?? [];
  return listed.map((mc, i) => {
    const raw = replies[i]?.[1];
    let was: string[] = [];
    const removed = new Set<string>();
    try {
      const lookup = decodeCarrier(mc, typeof raw === 'string' ? raw : null);
      if (lookup.kind === 'found') {
        was = carrierReasons(lookup.record, rules, nowMs);
        for (const hit of lookup.record.hits) {
          const entry = removedFor(removedEntries, hit);
          if (entry) removed.add(describeRemoved(entry));
        }
      } else if (lookup.kind === 'ambiguous') was = ['ambiguous_mc_number'];
    } catch {
      was = [];
    }
    return removed.size > 0 ? { mc, was, removed: [...removed] } : { mc, was };
  });
}

/** The census pass's name-matching worker, when it has one (set to null once given up). */
interface Matcher {
  worker: NameMatchWorker | null;
  close(): Promise<void>;
}

const NO_WORKER = { worker: null, close: () => Promise.resolve() };

/** Starts the matching worker the options ask for; on any failure to start, the ingest matches on its own thread. */
async function startMatcher(sources: JoinedSources, options: IngestOptions, warn: (message: string) => void): Promise<Matcher> {
  const mode = options.matchWorker ?? 'auto';
  if (mode === 'off' || sources.watchlists.size === 0) return { ...NO_WORKER };
  if (mode === 'auto' && (await stat(options.files.census)).size < MATCH_WORKER_MIN_BYTES) return { ...NO_WORKER };
  try {
    const worker = await NameMatchWorker.start(sources.watchlists.inputs());
    return { worker, close: () => worker.close() };
  } catch (error) {
    warn(`name matching stays on the ingest's own thread: ${(error as Error).message}`);
    return { ...NO_WORKER };
  }
}

/** A census row's carrier identity (what its record is built and its names matched under). */
function identityOf(row: CensusRow): CarrierIdentity {
  return { dot: row.dot, legalName: row.legalName, dbaName: row.dbaName };
}
