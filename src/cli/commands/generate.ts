// `carrier-eligibility generate --carriers N --out DIR`: synthetic files in the real layouts (benchmarks).
import type { Command } from 'commander';
import { writeSyntheticFiles } from '../../ingest/synthetic.js';
import { CliError } from '../context.js';

export function register(program: Command): void {
  program.command('generate')
    .description('write synthetic census/L&I/OOS/OFAC/SAM/DNU files in the real layouts (for benchmarks)')
    .requiredOption('--carriers <n>', 'number of carriers')
    .requiredOption('--out <dir>', 'output directory (created)')
    .action(async (options: { carriers: string; out: string }) => {
      const carriers = Number(options.carriers);
      if (!Number.isInteger(carriers) || carriers < 1) throw new CliError(`--carriers must be a positive integer (got "${options.carriers}")`);
      const files = await writeSyntheticFiles(options.out, carriers);
      process.stdout.write(`${JSON.stringify({ carriers, files }, null, 2)}\n`);
    });
}
