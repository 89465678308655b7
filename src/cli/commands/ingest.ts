// `carrier-eligibility ingest`: one complete snapshot from files on disk, pointer flipped last.
import type { Command } from 'commander';
import { IngestError } from '../../ingest/errors.js';
import { consoleProgress } from '../../ingest/progress.js';
import { formatIngestReport } from '../../ingest/report-table.js';
import { runIngest, type IngestFiles } from '../../ingest/run.js';
import type { AmountUnits } from '../../ingest/sources/common.js';
import { IngestLockedError } from '../../store/snapshot-writer.js';
import { CliError, withContext } from '../context.js';
import { retiredSnapshotGraceMs } from '../../store/snapshot-writer.js';

interface IngestCliOptions {
  census: string; authority: string; insurance?: string; insuranceHistory?: string; revocations?: string; oos?: string;
  ofacSdn?: string; ofacAlt?: string; ofacCons?: string; ofacConsAlt?: string; sam?: string; dnu?: string;
  asOf?: string; force?: boolean; insuranceUnits: string; redisDnu: boolean;
}

export function register(program: Command): void {
  program.command('ingest')
    .description('build a new carrier snapshot from the public files and make it current (atomically)')
    .requiredOption('--census <file>', 'FMCSA Company Census File CSV (az4n-8mr2), with header')
    .requiredOption('--authority <file>', 'Motus Carrier dataset (headers) or legacy headerless 43-field L&I Carrier file')
    .option('--insurance <file>', 'Motus Insur, legacy Insur (9 fields) or legacy ActPendInsur (11 fields)')
    .option('--insurance-history <file>', 'Motus or legacy InsHist (future BIPD cancellations)')
    .option('--revocations <file>', 'legacy Revocation or Motus RevokeSuspend')
    .option('--oos <file>', 'New Entrant Out-of-Service orders CSV (p2mt-9ige)')
    .option('--ofac-sdn <file>', 'OFAC sdn.csv')
    .option('--ofac-alt <file>', 'OFAC alt.csv (aliases of --ofac-sdn entries)')
    .option('--ofac-cons <file>', 'OFAC consolidated non-SDN cons_prim.csv')
    .option('--ofac-cons-alt <file>', 'OFAC cons_alt.csv (aliases of --ofac-cons entries)')
    .option('--sam <file>', 'SAM.gov Exclusions Public V2 extract CSV (active records are used)')
    .option('--dnu <file>', 'do-not-use CSV: mc_number,reason,added_at,expires_at (merged with the Redis DNU list)')
    .option('--no-redis-dnu', 'do not merge the live Redis do-not-use list')
    .option('--as-of <date>', "data_as_of of the snapshot: 'now' or an ISO date (default: the census/authority files' own date)")
    .option('--insurance-units <units>', 'units of Motus amount columns: dollars | thousands | auto (< 10000 = thousands)', 'auto')
    .option('--force', 'accept a carrier count more than 10% below the serving snapshot')
    .addHelpText('after', '\nSources left out are recorded as present: false (never as "no hits").\nExit code 0 on success; 1 with one line on stderr naming file, row, field and why on failure.')
    .action(async (options: IngestCliOptions) => {
      if (!['dollars', 'thousands', 'auto'].includes(options.insuranceUnits)) {
        throw new CliError(`--insurance-units must be dollars, thousands or auto (got "${options.insuranceUnits}")`);
      }
      const files: IngestFiles = {
        census: options.census, authority: options.authority, insurance: options.insurance,
        insuranceHistory: options.insuranceHistory, revocations: options.revocations, oos: options.oos,
        ofacSdn: options.ofacSdn, ofacAlt: options.ofacAlt, ofacCons: options.ofacCons, ofacConsAlt: options.ofacConsAlt,
        sam: options.sam, dnu: options.dnu,
      };
      await withContext(async ({ config, redis, keys }) => {
        try {
          const report = await runIngest(redis, keys, {
            files, asOf: options.asOf, force: options.force, insuranceUnits: options.insuranceUnits as AmountUnits,
            useRedisDnu: options.redisDnu, progress: consoleProgress(),
            // A batch job pins the snapshot it started on and may run until its deadline: keep a replaced
            // version at least that long so no running job loses its data mid-way.
            graceMs: retiredSnapshotGraceMs(config),
          });
          process.stdout.write(`${formatIngestReport(report)}\n`);
        } catch (error) {
          if (error instanceof IngestError || error instanceof IngestLockedError) throw new CliError(`ingest aborted, current snapshot unchanged: ${error.message}`);
          throw error;
        }
      });
    });
}
