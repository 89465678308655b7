// `carrier-eligibility seed --sample`: ingest the bundled sample (regenerated with dates relative to now).
import type { Command } from 'commander';
import { formatIngestReport } from '../../ingest/report-table.js';
import { DEMO_CARRIERS, seedSample } from '../../ingest/sample.js';
import { ensureRuleSet } from '../../store/rulesets.js';
import { CliError, withContext } from '../context.js';

export function register(program: Command): void {
  program.command('seed')
    .description('load demo data through the normal ingest path')
    .option('--sample', 'ingest the bundled sample carriers (every reason code occurs at least once)')
    .action(async (options: { sample?: boolean }) => {
      if (!options.sample) throw new CliError('seed needs --sample');
      await withContext(async ({ redis, keys }) => {
        const report = await seedSample(redis, keys, { quiet: !process.stderr.isTTY });
        const rules = await ensureRuleSet(redis, keys);
        process.stdout.write(`${formatIngestReport(report)}\n\nRule set in force: version ${rules.version} (${rules.rules.name}).\n`);
        process.stdout.write('\nDemo MC numbers (expected tier: reasons):\n');
        for (const carrier of DEMO_CARRIERS) {
          process.stdout.write(`  ${carrier.mc.padEnd(8)} ${String(carrier.tier).padEnd(11)} ${carrier.reasons.join(', ') || '(none)'}\n`);
        }
      });
    });
}
