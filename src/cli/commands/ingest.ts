// `carrier-eligibility ingest`: one complete snapshot from files on disk, pointer flipped last.
import { setPriority } from 'node:os';
import type { Command } from 'commander';
import { formatGuardTable, GuardRefusal } from '../../ingest/change-guards.js';
import { IngestError } from '../../ingest/errors.js';
import { consoleProgress } from '../../ingest/progress.js';
import { formatIngestReport } from '../../ingest/report-table.js';
import { runIngest, type IngestFiles } from '../../ingest/run.js';
import { identityKeys, IdentityRecorder, loadExceptions, NO_EXCEPTIONS } from '../../identity/index.js';
import type { AmountUnits } from '../../ingest/sources/common.js';
import { FencedOutError, IngestLockedError } from '../../store/snapshot-writer.js';
import { CliError, withContext } from '../context.js';
import { retiredSnapshotGraceMs } from '../../store/snapshot-writer.js';

interface IngestCliOptions {
  census: string; authority: string[]; insurance?: string; insuranceHistory?: string; authorityHistory?: string; revocations?: string[]; oos?: string;
  ofacSdn?: string; ofacAlt?: string; ofacCons?: string; ofacConsAlt?: string; ofacAdd?: string; ofacConsAdd?: string; sam?: string; dnu?: string;
  asOf?: string; asOfSource?: string[]; force?: boolean; insuranceUnits: string; redisDnu: boolean; accept?: string[];
  identityExceptions?: string;
}

const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];

/** `--as-of-source ofac_sdn=2026-11-20` (repeatable; also `a=D1,b=D2`) → { ofac_sdn: '2026-11-20' }. */
export function parseAsOfSourceFlags(values: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of values.flatMap((value) => value.split(','))) {
    const match = /^\s*([a-z_]+)\s*=\s*(\S+)\s*$/.exec(pair);
    if (!match) throw new CliError(`--as-of-source must be SOURCE=DATE, e.g. ofac_sdn=2026-11-20 (got "${pair}")`);
    if (match[1]! in out) throw new CliError(`--as-of-source ${match[1]} given twice`);
    out[match[1]!] = match[2]!;
  }
  return out;
}

export function register(program: Command): void {
  program.command('ingest')
    .description('build a new carrier snapshot from the public files and make it current (atomically)')
    .requiredOption('--census <file>', 'FMCSA Company Census File CSV (az4n-8mr2), with header')
    .requiredOption('--authority <file>', 'Motus Carrier dataset (headers) or legacy headerless 43-field L&I Carrier file; give it twice to read Motus and legacy side by side', collect)
    .option('--insurance <file>', 'Motus Insur, legacy Insur (9 fields) or legacy ActPendInsur (11 fields)')
    .option('--insurance-history <file>', 'Motus or legacy InsHist (BIPD cancellations: pending, and ones that took effect)')
    .option('--authority-history <file>', 'legacy or Motus AuthHist: the grants and reinstatements that clear a revocation')
    .option('--revocations <file>', 'legacy Revocation or Motus RevokeSuspend; give it twice to read both side by side', collect)
    .option('--oos <file>', 'New Entrant Out-of-Service orders CSV (p2mt-9ige)')
    .option('--ofac-sdn <file>', 'OFAC sdn.csv')
    .option('--ofac-alt <file>', 'OFAC alt.csv (aliases of --ofac-sdn entries)')
    .option('--ofac-cons <file>', 'OFAC consolidated non-SDN cons_prim.csv')
    .option('--ofac-cons-alt <file>', 'OFAC cons_alt.csv (aliases of --ofac-cons entries)')
    .option('--ofac-add <file>', 'OFAC add.csv (addresses of --ofac-sdn entries; used as matching evidence)')
    .option('--ofac-cons-add <file>', 'OFAC cons_add.csv (addresses of --ofac-cons entries)')
    .option('--sam <file>', 'SAM.gov Exclusions Public V2 extract CSV (active records are used)')
    .option('--dnu <file>', 'do-not-use CSV: mc_number,reason,added_at,expires_at (merged with the Redis DNU list)')
    .option('--no-redis-dnu', 'do not merge the live Redis do-not-use list')
    .option('--as-of <date>', "data_as_of of the snapshot: 'now', YYYY-MM-DD or RFC 3339, not in the future (default: the older of the census and authority as-of)")
    .option('--as-of-source <source=date>', 'as-of of a source whose files carry no date (authority, ofac_sdn, ofac_cons, insurance_history, …): SOURCE=YYYY-MM-DD, repeatable', collect)
    .option('--insurance-units <units>', 'units of Motus amount columns: dollars | thousands | auto (< 10000 = thousands)', 'auto')
    .option('--accept <guard>', 'accept ONE change guard beyond its limit, by the name the refusal table gives (e.g. blank:census.SAFETY_RATING); repeatable', collect)
    .option('--identity-exceptions <file>', 'JSON list of known legitimate shared phones, emails, addresses and DOT groups (default: IDENTITY_EXCEPTIONS_FILE; docs/identity.md)')
    .option('--force', 'accept an empty or >10% smaller source, a dropped source, a census short of the authority file, or a carrier count >10% below the serving snapshot')
    .addHelpText('after', '\nSources left out are recorded as present: false (never as "no hits").\nExit code 0 on success; 1 with one line on stderr naming file, row, field and why on failure.')
    .action(async (options: IngestCliOptions) => {
      if (!['dollars', 'thousands', 'auto'].includes(options.insuranceUnits)) {
        throw new CliError(`--insurance-units must be dollars, thousands or auto (got "${options.insuranceUnits}")`);
      }
      if (options.authority.length > 2) throw new CliError('--authority can be given at most twice (Motus and legacy side by side)');
      if ((options.revocations?.length ?? 0) > 2) throw new CliError('--revocations can be given at most twice (Motus and legacy side by side)');
      const sourceAsOf = parseAsOfSourceFlags(options.asOfSource ?? []);
      const files: IngestFiles = {
        census: options.census, authority: options.authority[0]!, secondAuthority: options.authority[1], insurance: options.insurance,
        insuranceHistory: options.insuranceHistory, authorityHistory: options.authorityHistory, revocations: options.revocations?.[0], secondRevocations: options.revocations?.[1], oos: options.oos,
        ofacSdn: options.ofacSdn, ofacAlt: options.ofacAlt, ofacCons: options.ofacCons, ofacConsAlt: options.ofacConsAlt,
        ofacAdd: options.ofacAdd, ofacConsAdd: options.ofacConsAdd,
        sam: options.sam, dnu: options.dnu,
      };
      await withContext(async ({ config, redis, keys }) => {
        lowerPriority(config.INGEST_NICE);
        const exceptionsFile = options.identityExceptions ?? config.IDENTITY_EXCEPTIONS_FILE;
        let exceptions = NO_EXCEPTIONS;
        try {
          if (exceptionsFile !== undefined) exceptions = await loadExceptions(exceptionsFile);
        } catch (error) {
          throw new CliError(`ingest aborted, current snapshot unchanged: --identity-exceptions ${(error as Error).message}`);
        }
        try {
          const report = await runIngest(redis, keys, {
            files, asOf: options.asOf, sourceAsOf, force: options.force, insuranceUnits: options.insuranceUnits as AmountUnits,
            useRedisDnu: options.redisDnu, progress: consoleProgress(),
            // A batch job pins the snapshot it started on and may run until its deadline: keep a replaced
            // version at least that long so no running job loses its data mid-way.
            graceMs: retiredSnapshotGraceMs(config), maxVersions: config.SNAPSHOT_MAX_VERSIONS,
            pacing: { batch: config.INGEST_WRITE_BATCH, ratePerSecond: config.INGEST_WRITE_RATE },
            accept: options.accept ?? [], lockTtlMs: config.INGEST_LOCK_TTL_MS, matchWorker: config.INGEST_MATCH_WORKER,
            identity: new IdentityRecorder(redis, identityKeys(config.REDIS_PREFIX), { exceptions }),
            limits: {
              maxBipdUsd: config.INGEST_MAX_BIPD_USD, maxUnknownShare: config.INGEST_MAX_UNKNOWN_SHARE,
              maxBlankRise: config.INGEST_MAX_BLANK_RISE, maxQuarantineShare: config.INGEST_MAX_QUARANTINE_SHARE,
              maxVerdictShift: config.INGEST_MAX_VERDICT_SHIFT, maxNewlyEligible: config.INGEST_MAX_NEWLY_ELIGIBLE,
              maxMedianFactor: config.INGEST_MAX_MEDIAN_FACTOR, maxListRemovedShare: config.INGEST_MAX_LIST_REMOVED_SHARE,
            },
          });
          process.stdout.write(`${formatIngestReport(report)}\n`);
        } catch (error) {
          if (error instanceof GuardRefusal) process.stderr.write(`${formatGuardTable(error.rows)}\n`);
          if (error instanceof IngestError || error instanceof IngestLockedError || error instanceof FencedOutError) throw new CliError(`ingest aborted, current snapshot unchanged: ${error.message}`);
          throw error;
        }
      });
    });
}

/**
 * The ingest is a batch job: where it shares cores with the API replicas and Redis (one VM, a node without CPU
 * limits), the checks come first. Set before the name-matching worker starts, so that thread inherits it; under a
 * cgroup of its own (a pod with a CPU request) it changes nothing. A value the system refuses is left as it is.
 */
function lowerPriority(nice: number): void {
  if (nice === 0) return;
  try {
    setPriority(nice);
  } catch {
    // Not permitted here: the ingest runs at its normal priority.
  }
}
