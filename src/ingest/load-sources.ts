// Loads every side source (everything but the census, which streams last) into compact maps, recording per file
// its rows, SHA-256 (hashed while it streams) and content as-of, and per source the as-of the freshness checks use.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { RedisClient } from '../redis/connection.js';
import type { SourceFile, SourceFreshness } from '../core/carrier.js';
import { calendarDate, isFutureDay } from '../core/dates.js';
import type { SourceName } from '../core/ruleset.js';
import { WatchlistIndex } from '../match/watchlist-index.js';
import type { RedisKeys } from '../store/keys.js';
import type { JoinedSources } from './build.js';
import { isDnuActive, loadDnuFile, longerBan, readDnuHash, type DnuEntry } from './dnu.js';
import { IngestError } from './errors.js';
import { sniffFile } from './sniff.js';
import type { CodedFields } from './coded-fields.js';
import type { Quarantine } from './quarantine.js';
import type { ProgressReporter } from './progress.js';
import { loadAuthority, mergeAuthority } from './sources/authority.js';
import { loadAuthorityHistory } from './sources/authority-history.js';
import { SourceStats, type AmountUnits, type LoadContext } from './sources/common.js';
import { loadInsurance, loadInsuranceHistory } from './sources/insurance.js';
import { loadOosOrders } from './sources/oos.js';
import { loadRevocations, mergeRevocations, type RevocationInfo } from './sources/revocations.js';
import { SlotIndex } from './slot-index.js';
import { loadOfacAddresses, loadOfacAliases, loadOfacPrimary, loadSamExclusions } from './sources/watchlists.js';
import { messageOf } from '../thrown.js';
import { ListEntries, type WatchList } from './list-diff.js';

export interface IngestFiles {
  census: string;
  authority: string;
  /** A second authority file read side by side with the first (Motus and legacy L&I); see docs/ingest.md. */
  secondAuthority?: string;
  insurance?: string;
  insuranceHistory?: string;
  revocations?: string;
  /** A second revocations file (Motus RevokeSuspend and legacy Revocation side by side). */
  secondRevocations?: string;
  /** Legacy or Motus AuthHist: the grants and reinstatements that clear a revocation that took effect. */
  authorityHistory?: string;
  oos?: string;
  ofacSdn?: string;
  ofacAlt?: string;
  ofacCons?: string;
  ofacConsAlt?: string;
  /** OFAC add.csv / cons_add.csv: listed addresses, loaded after their primary file (matching evidence). */
  ofacAdd?: string;
  ofacConsAdd?: string;
  sam?: string;
  dnu?: string;
}

export interface FileReport {
  source: SourceName;
  file: string;
  stats: SourceStats;
}

/** One file as read: what the meta records about it, plus the content as-of it yielded (ISO day) if any. */
export interface FileRecord extends SourceFile {
  source: SourceName;
  path: string;
  /** Newest content date the file yielded (ISO day), or null when its format has none. */
  contentAsOf: string | null;
  /** The file's resolved as-of (RFC 3339) and where it came from; the DNU file has none of its own. */
  asOf?: { as_of: string; as_of_from: 'content' | 'flag' | 'file_name' };
}

export interface LoadedSources {
  joined: JoinedSources;
  freshness: Partial<Record<SourceName, SourceFreshness>>;
  reports: FileReport[];
  files: FileRecord[];
  /** Cross-file inconsistencies found while loading (an alias of an entry its primary file lacks), refused after the row guards. */
  problems: IngestError[];
  /** Per watch list given: the identities of its entries and its primary file (the next ingest names removals). */
  lists: Partial<Record<WatchList, { entries: ListEntries; file: string }>>;
}

/** A calendar day in a file's name (revocation_2024_08_06.csv, sdn_20261121.csv), or null. */
export function fileNameDate(file: string): string | null {
  const match = /(?:^|\D)((?:19|20)\d{2})[-_]?(\d{2})[-_]?(\d{2})(?:\D|$)/.exec(basename(file));
  return match ? calendarDate(Number(match[1]), Number(match[2]), Number(match[3])) : null;
}

const startOfDay = (isoDay: string) => `${isoDay}T00:00:00.000Z`;

/** The CLI flag an operator passes for a source's as-of. */
export const asOfFlag = (source: SourceName) => `--as-of-source ${source}=YYYY-MM-DD`;

/**
 * One file's as-of, never its mtime (which a copy or `touch` resets). In order: the file's own content dates, else
 * a date in the file's name (specific to that file), else the operator's explicit per-source flag; without any,
 * the ingest refuses with one line. A flag given for a file that carries content dates is not used (content is
 * the stronger evidence) and the ingest says so in a warning.
 */
export function resolveFileAsOf(
  source: SourceName, file: FileRecord, flag: string | undefined, nowMs: number, warn: (message: string) => void,
): { as_of: string; as_of_from: 'content' | 'flag' | 'file_name' } {
  if (file.contentAsOf !== null) {
    if (flag !== undefined) warn(`${file.name}: carries content dates (newest ${file.contentAsOf}); --as-of-source ${source} not used for it`);
    return { as_of: startOfDay(file.contentAsOf), as_of_from: 'content' };
  }
  const named = fileNameDate(file.path);
  if (named !== null) {
    if (isFutureDay(named, nowMs)) throw new IngestError(file.path, null, null, `the date in the file name (${named}) is in the future`);
    return { as_of: startOfDay(named), as_of_from: 'file_name' };
  }
  if (flag !== undefined) return { as_of: flag, as_of_from: 'flag' };
  throw new IngestError(file.path, null, null,
    `no as-of date: the file carries none; pass ${asOfFlag(source)} (the date it was published) or put that date in the file name`);
}

/**
 * A source's as-of from its files' as-ofs: the oldest file's (a source is only as fresh as its stalest part), except
 * for the authority read side by side, where the newest file is the live overlay (Motus) on a frozen one (legacy
 * L&I) and the per-docket rule in build.ts guards revocations (docs/ingest.md, "Data trust").
 */
function sourceAsOf(source: SourceName, files: FileRecord[], ingestedAt: string): Pick<SourceFreshness, 'as_of' | 'as_of_from'> {
  // The broker's own do-not-use list is current by definition when it is read: its as-of is the ingest time.
  if (source === 'dnu') return { as_of: ingestedAt };
  const dated = files.flatMap((file) => file.asOf ?? []).sort((a, b) => a.as_of.localeCompare(b.as_of));
  const pick = source === 'authority' ? dated.at(-1) : dated[0];
  if (pick === undefined || dated.length < files.length) return { as_of: null };
  return { as_of: pick.as_of, as_of_from: pick.as_of_from };
}

/** The same bytes never feed two sources (or one source twice): the SDN files given as the consolidated list, say. */
export function checkDistinctFiles(records: ReadonlyArray<Pick<FileRecord, 'source' | 'path' | 'sha256' | 'rows'>>): void {
  const seen = new Map<string, Pick<FileRecord, 'source' | 'path'>>();
  for (const record of records) {
    if (record.rows === 0) continue;
    const other = seen.get(record.sha256);
    if (other) {
      throw new IngestError(record.path, null, null,
        `${record.source}: the same file (SHA-256 ${record.sha256.slice(0, 12)}…) as ${other.path} (${other.source}); one file never feeds two sources`);
    }
    seen.set(record.sha256, record);
  }
}

/** The files of one list (OFAC primary, alias, address) must carry the same date: a list is one publication. */
function checkSameDate(records: ReadonlyArray<FileRecord>): void {
  for (const source of ['ofac_sdn', 'ofac_cons'] as const) {
    const mine = records.flatMap((record) => (record.source === source && record.asOf ? [{ record, day: record.asOf.as_of.slice(0, 10) }] : []));
    const first = mine[0];
    const other = mine.find(({ day }) => day !== first?.day);
    if (first && other) {
      throw new IngestError(other.record.path, null, null,
        `${source}: dated ${other.day} but ${first.record.name} is dated ${first.day}; the files of one list must be of the same publication`);
    }
  }
}

export async function checkReadable(files: IngestFiles): Promise<void> {
  for (const file of Object.values(files)) {
    if (file === undefined) continue;
    try {
      const info = await stat(file);
      if (!info.isFile()) throw new Error('not a regular file');
    } catch (error) {
      throw new IngestError(file, null, null, `cannot read: ${messageOf(error)}`);
    }
    const kind = await sniffFile(file);
    if (kind !== null) throw new IngestError(file, null, null, `this is ${kind}, not a CSV file; unpack or re-download it`);
  }
}

/** SHA-256 of a whole file (fallback for a loader that stopped reading early; normally the hash is taken in passing). */
async function hashFile(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) hash.update(chunk);
  return hash.digest('hex');
}

/** Hashes a file while a loader streams it (via LoadContext.onBytes) and reports progress. */
export class StreamingHash {
  private readonly hash = createHash('sha256');
  private hashed = 0;

  constructor(private readonly onProgress: (bytes: number) => void) {}

  readonly onBytes = (bytes: number, chunk?: Buffer): void => {
    this.onProgress(bytes);
    if (chunk) {
      this.hash.update(chunk);
      this.hashed += chunk.length;
    }
  };

  /** The file's SHA-256; re-reads the file only if the loader did not read all of it. */
  async digest(file: string, size: number): Promise<string> {
    return this.hashed === size ? this.hash.digest('hex') : hashFile(file);
  }
}

export interface LoadOptions {
  files: IngestFiles;
  today: string;
  nowMs: number;
  insuranceUnits: AmountUnits;
  useRedisDnu: boolean;
  progress: ProgressReporter;
  warn: (message: string) => void;
  /** Operator-given as-of per source (RFC 3339, already validated: strict, not in the future). */
  sourceAsOf: Partial<Record<SourceName, string>>;
  coded?: CodedFields;
  quarantine?: Quarantine;
  maxBipdUsd?: number;
}

export async function loadSources(redis: RedisClient, keys: RedisKeys, options: LoadOptions): Promise<LoadedSources> {
  const { files, progress } = options;
  const reports: FileReport[] = [];
  const records: FileRecord[] = [];
  const mcSlots = new SlotIndex('mc');
  const ingestedAt = new Date(options.nowMs).toISOString();

  /** Runs one loader with a progress bar and a streaming hash, and records the file (OFAC prim + alt share a source). */
  async function load<T>(
    source: SourceName, file: string, body: (context: LoadContext, stats: SourceStats, file: string) => Promise<T>,
    contentAsOf: (result: T, stats: SourceStats) => string | null = (_, stats) => stats.newest,
  ): Promise<T> {
    const stats = new SourceStats();
    const size = (await stat(file)).size;
    const bar = progress.file(`${source}`, size, () => stats.rows);
    const hash = new StreamingHash((bytes) => bar.bytes(bytes));
    const context: LoadContext = {
      today: options.today, nowMs: options.nowMs, insuranceUnits: options.insuranceUnits, warn: options.warn,
      onBytes: hash.onBytes, mcSlots, coded: options.coded, quarantine: options.quarantine, maxBipdUsd: options.maxBipdUsd,
    };
    const result = await body(context, stats, file);
    bar.done(stats.rows);
    reports.push({ source, file, stats });
    records.push({
      source, path: file, name: basename(file), sha256: await hash.digest(file, size), bytes: size, rows: stats.rows,
      contentAsOf: contentAsOf(result, stats),
    });
    return result;
  }

  const authority = await load('authority', files.authority, (c, s) => loadAuthority(files.authority, c, s));
  const secondAuthority = files.secondAuthority
    ? await load('authority', files.secondAuthority, (c, s, file) => loadAuthority(file, c, s)) : null;
  // The history first: a cancellation in it that took effect removes a policy the insurance file still lists.
  const insuranceHistory = files.insuranceHistory
    ? await load('insurance_history', files.insuranceHistory, (c, s, file) => loadInsuranceHistory(file, c, s)) : null;
  const insurance = files.insurance
    ? await load('insurance', files.insurance, (c, s, file) => loadInsurance(file, c, s, insuranceHistory ?? undefined)) : null;
  let revocations: Map<number, RevocationInfo> | null = null;
  for (const file of [files.revocations, files.secondRevocations]) {
    if (!file) continue;
    const loaded = await load('revocations', file, (c, s) => loadRevocations(file, c, s));
    revocations = revocations ? mergeRevocations(revocations, loaded) : loaded;
  }
  // Only dockets with a revocation that took effect need their grants: the history clears nothing else.
  const revoked = new Set([...(revocations ?? new Map<number, RevocationInfo>())].filter(([, info]) => info.revokedOn !== null).map(([mc]) => mc));
  const authorityGrants = files.authorityHistory
    ? await load('authority_history', files.authorityHistory, (c, s, file) => loadAuthorityHistory(file, c, s, revoked)) : null;
  const oos = files.oos ? await load('oos', files.oos, (c, s, file) => loadOosOrders(file, c, s)) : null;

  const watchlists = new WatchlistIndex();
  const lists: LoadedSources['lists'] = {};
  const problems: Array<IngestError | null> = [];
  for (const [source, prim, alt, add] of [
    ['ofac_sdn', files.ofacSdn, files.ofacAlt, files.ofacAdd], ['ofac_cons', files.ofacCons, files.ofacConsAlt, files.ofacConsAdd],
  ] as const) {
    if (!prim) {
      if (alt) throw new IngestError(alt, null, null, `an alias file needs its primary file (--${source === 'ofac_sdn' ? 'ofac-sdn' : 'ofac-cons'})`);
      if (add) throw new IngestError(add, null, null, `an address file needs its primary file (--${source === 'ofac_sdn' ? 'ofac-sdn' : 'ofac-cons'})`);
      continue;
    }
    // OFAC's CSV files carry no date at all: the as-of comes from the operator's flag (or the file name).
    const entries = new ListEntries();
    lists[source] = { entries, file: prim };
    const entities = await load(source, prim, (c, s) => loadOfacPrimary(prim, source, watchlists, c, s, entries), () => null);
    if (alt) problems.push(await load(source, alt, (c, s) => loadOfacAliases(alt, source, entities, watchlists, c, s), () => null));
    if (add) problems.push(await load(source, add, (c, s) => loadOfacAddresses(add, source, watchlists, c, s, entities), () => null));
  }
  const samFile = files.sam;
  if (samFile) {
    const entries = new ListEntries();
    lists.sam = { entries, file: samFile };
    await load('sam', samFile, (c, s) => loadSamExclusions(samFile, watchlists, c, s, entries), (result) => {
      if (result.asOf !== null && isFutureDay(result.asOf, options.nowMs)) {
        throw new IngestError(samFile, null, 'Creation_Date', `newest Creation_Date is in the future: "${result.asOf}"`);
      }
      return result.asOf;
    });
  }

  // DNU: the file (if given) plus the live Redis hash, so `dnu add` takes effect at the next ingest at the latest.
  const dnu = new Map<string, DnuEntry>();
  if (files.dnu) for (const [mc, entry] of await load('dnu', files.dnu, (c, s, file) => loadDnuFile(file, s, c.onBytes, options.nowMs), () => null)) dnu.set(mc, entry);
  let liveDnuRows = 0;
  if (options.useRedisDnu) {
    const live = await readDnuHash(redis, keys);
    liveDnuRows = live.size;
    for (const [mc, entry] of live) {
      const earlier = dnu.get(mc);
      dnu.set(mc, earlier ? longerBan(earlier, entry) : entry);
    }
  }
  for (const [mc, entry] of dnu) if (!isDnuActive(entry, options.nowMs)) dnu.delete(mc);

  checkDistinctFiles(records);
  // An empty file has no as-of to find: the row guards (run.ts) refuse it with a clearer line than "no as-of".
  for (const record of records) {
    if (record.source !== 'dnu' && record.rows > 0) {
      record.asOf = resolveFileAsOf(record.source, record, options.sourceAsOf[record.source], options.nowMs, options.warn);
    }
  }
  checkSameDate(records);
  const freshness: Partial<Record<SourceName, SourceFreshness>> = {};
  for (const source of new Set(records.map((record) => record.source))) {
    const mine = records.filter((record) => record.source === source);
    freshness[source] = {
      present: true, ...sourceAsOf(source, mine, ingestedAt), rows: mine.reduce((sum, record) => sum + record.rows, 0),
      file: mine.map((record) => record.name).join(','), ingested_at: ingestedAt,
      files: mine.map(({ name, sha256, bytes, rows }) => ({ name, sha256, bytes, rows })),
    };
  }
  // Each watchlist hit records its list's as-of (evidence for the reviewer).
  for (const list of ['ofac_sdn', 'ofac_cons', 'sam'] as const) watchlists.setListAsOf(list, freshness[list]?.as_of ?? null);
  if (options.useRedisDnu) {
    if (freshness.dnu) freshness.dnu.rows += liveDnuRows;
    else freshness.dnu = { present: true, as_of: ingestedAt, rows: liveDnuRows, file: 'redis', ingested_at: ingestedAt, files: [] };
  }

  // Motus and legacy authority side by side: merged per docket, the worse status winning where they disagree.
  if (secondAuthority) mergeAuthority(authority, secondAuthority, options.warn);

  return {
    joined: { authority, insurance, insuranceHistory, revocations, authorityGrants, oos, watchlists, dnu, mcSlots, quarantine: options.quarantine },
    freshness, reports, files: records, lists, problems: problems.filter((problem): problem is IngestError => problem !== null),
  };
}
