// `carrier-eligibility data status`: which snapshot serves, its as-of per source and counts (JSON).
import type { Command } from 'commander';
import { readSnapshotStatus } from '../../store/snapshot-status.js';
import { printJson, withContext } from '../context.js';

export function register(program: Command): void {
  const data = program.command('data').description('inspect the carrier data snapshots');
  data.command('status')
    .description('print the current snapshot version, data_as_of, per-source as-of and row counts (JSON)')
    .action(async () => {
      await withContext(async ({ redis, keys }) => printJson(await readSnapshotStatus(redis, keys)));
    });
}
