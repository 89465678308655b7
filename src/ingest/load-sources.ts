// Loads every side source (everything but the census, which streams last) into compact maps, recording each
// file's rows, skips and own as-of date for the snapshot meta and the final table.
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { RedisClient } from '../redis/connection.js';
import type { SourceFreshness } from '../core/carrier.js';
import type { SourceName } from '../core/ruleset.js';
import { WatchlistIndex } from '../match/watchlist-index.js';
import type { RedisKeys } from '../store/keys.js';
import type { JoinedSources } from './build.js';
import { isDnuActive, loadDnuFile, readDnuHash, type DnuEntry } from './dnu.js';
import { IngestError } from './errors.js';
import type { ProgressReporter } from './progress.js';
import { loadAuthority } from './sources/authority.js';
import { SourceStats, type AmountUnits, type LoadContext } from './sources/common.js';
import { loadInsurance, loadInsuranceHistory } from './sources/insurance.js';
import { loadOosOrders } from './sources/oos.js';
import { loadRevocations } from './sources/revocations.js';
import { SlotIndex } from './slot-index.js';
import { loadOfacAliases, loadOfacPrimary, loadSamExclusions } from './sources/watchlists.js';

export interface IngestFiles {
  census: string;
  authority: string;
  insurance?: string;
  insuranceHistory?: string;
  revocations?: string;
  oos?: string;
  ofacSdn?: string;
  ofacAlt?: string;
  ofacCons?: string;
  ofacConsAlt?: string;
  sam?: string;
  dnu?: string;
}

export interface FileReport {
  source: SourceName;
  file: string;
  stats: SourceStats;
}

export interface LoadedSources {
  joined: JoinedSources;
  freshness: Partial<Record<SourceName, SourceFreshness>>;
  reports: FileReport[];
}

/** A file's own date: one in its name (revocation_2024_08_06.csv, ..._20261121.csv), else its mtime. */
export async function fileAsOf(file: string): Promise<string> {
  const match = /(20\d{2})[-_]?(\d{2})[-_]?(\d{2})/.exec(basename(file));
  if (match) {
    const iso = `${match[1]}-${match[2]}-${match[3]}T00:00:00.000Z`;
    if (!Number.isNaN(Date.parse(iso))) return iso;
  }
  return (await stat(file)).mtime.toISOString();
}

export async function checkReadable(files: IngestFiles): Promise<void> {
  for (const file of Object.values(files)) {
    if (file === undefined) continue;
    try {
      const info = await stat(file);
      if (!info.isFile()) throw new Error('not a regular file');
    } catch (error) {
      throw new IngestError(file, null, null, `cannot read: ${(error as Error).message}`);
    }
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
}

export async function loadSources(redis: RedisClient, keys: RedisKeys, options: LoadOptions): Promise<LoadedSources> {
  const { files, progress } = options;
  const freshness: Partial<Record<SourceName, SourceFreshness>> = {};
  const reports: FileReport[] = [];
  const mcSlots = new SlotIndex('mc');

  /** Runs one loader with a progress bar and records its freshness (OFAC prim + alt files share one source). */
  async function load<T>(source: SourceName, file: string, body: (context: LoadContext, stats: SourceStats) => Promise<T>, stats = new SourceStats()): Promise<T> {
    const size = (await stat(file)).size;
    const bar = progress.file(`${source}`, size, () => stats.rows);
    const context: LoadContext = {
      today: options.today, insuranceUnits: options.insuranceUnits, warn: options.warn, onBytes: (bytes) => bar.bytes(bytes), mcSlots,
    };
    const result = await body(context, stats);
    bar.done(stats.rows);
    reports.push({ source, file, stats });
    const previous = freshness[source];
    const asOf = await fileAsOf(file);
    freshness[source] = {
      present: true,
      as_of: previous?.as_of && previous.as_of < asOf ? previous.as_of : asOf,
      rows: (previous?.rows ?? 0) + stats.rows,
      file: previous?.file ? `${previous.file},${basename(file)}` : basename(file),
    };
    return result;
  }

  const authority = await load('authority', files.authority, (c, s) => loadAuthority(files.authority, c, s));
  const insurance = files.insurance ? await load('insurance', files.insurance, (c, s) => loadInsurance(files.insurance!, c, s)) : null;
  const insuranceHistory = files.insuranceHistory
    ? await load('insurance_history', files.insuranceHistory, (c, s) => loadInsuranceHistory(files.insuranceHistory!, c, s)) : null;
  const revocations = files.revocations ? await load('revocations', files.revocations, (c, s) => loadRevocations(files.revocations!, c, s)) : null;
  const oos = files.oos ? await load('oos', files.oos, (c, s) => loadOosOrders(files.oos!, c, s)) : null;

  const watchlists = new WatchlistIndex();
  for (const [source, prim, alt] of [['ofac_sdn', files.ofacSdn, files.ofacAlt], ['ofac_cons', files.ofacCons, files.ofacConsAlt]] as const) {
    if (!prim) {
      if (alt) throw new IngestError(alt, null, null, `an alias file needs its primary file (--${source === 'ofac_sdn' ? 'ofac-sdn' : 'ofac-cons'})`);
      continue;
    }
    const entities = await load(source, prim, (c, s) => loadOfacPrimary(prim, source, watchlists, c, s));
    if (alt) await load(source, alt, (c, s) => loadOfacAliases(alt, source, entities, watchlists, c, s));
  }
  if (files.sam) await load('sam', files.sam, (c, s) => loadSamExclusions(files.sam!, watchlists, c, s));

  // DNU: the file (if given) plus the live Redis hash, so `dnu add` takes effect at the next ingest at the latest.
  const dnu = new Map<string, DnuEntry>();
  if (files.dnu) for (const [mc, entry] of await load('dnu', files.dnu, (c, s) => loadDnuFile(files.dnu!, s, c.onBytes))) dnu.set(mc, entry);
  if (options.useRedisDnu) {
    const live = await readDnuHash(redis, keys);
    for (const [mc, entry] of live) dnu.set(mc, entry);
    if (!files.dnu) freshness.dnu = { present: true, as_of: new Date(options.nowMs).toISOString(), rows: live.size, file: 'redis' };
    else if (freshness.dnu) freshness.dnu.rows += live.size;
  }
  for (const [mc, entry] of dnu) if (!isDnuActive(entry, options.nowMs)) dnu.delete(mc);

  return { joined: { authority, insurance, insuranceHistory, revocations, oos, watchlists, dnu, mcSlots }, freshness, reports };
}
