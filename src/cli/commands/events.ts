// `carrier-eligibility events tail`: an account's monitoring events as JSON lines, from a cursor (or the oldest
// kept), optionally following new ones; the last line's cursor can be passed to --after to resume.
import type { Command } from 'commander';
import { decodeCursor, encodeCursor, EventStore, monitoringKeys } from '../../monitoring/index.js';
import { CliError, withContext } from '../context.js';

export function register(program: Command): void {
  const events = program.command('events').description('monitoring events of an account');

  events.command('tail')
    .description('print events (one JSON object per line: {cursor, event}); --follow keeps polling')
    .requiredOption('--account <account>', 'account whose events to print')
    .option('--after <cursor>', 'start after this cursor (default: the oldest event kept)')
    .option('--limit <n>', 'stop after this many events (without --follow: default 100)')
    .option('--follow', 'keep printing new events until interrupted')
    .action(async (options: { account: string; after?: string; limit?: string; follow?: boolean }) => {
      let after = options.after === undefined ? null : decodeCursor(options.after);
      if (options.after !== undefined && after === null) throw new CliError(`--after: not a cursor: "${options.after}"`);
      const limit = options.limit === undefined ? (options.follow ? Number.POSITIVE_INFINITY : 100) : Number(options.limit);
      if (!(limit >= 1)) throw new CliError('--limit must be a positive integer');
      await withContext(async ({ config, redis }) => {
        const store = new EventStore(redis, monitoringKeys(config.REDIS_PREFIX), config.MONITORING_EVENT_RETENTION_DAYS * 86_400_000);
        let printed = 0;
        for (;;) {
          const page = await store.after(options.account, after, Math.min(1000, limit - printed));
          for (const entry of page) {
            process.stdout.write(`${JSON.stringify({ cursor: encodeCursor(entry.streamId), event: entry.event })}\n`);
            after = entry.streamId;
          }
          printed += page.length;
          if (printed >= limit) return;
          if (page.length === 0) {
            if (!options.follow) return;
            await new Promise((resolve) => setTimeout(resolve, 1000));
          }
        }
      });
    });
}
