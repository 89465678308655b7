// `carrier-eligibility watch add|remove|list|import`: an account's monitoring watch list, for operators (the
// same store and limit as PUT/DELETE/POST/GET /v1/watchlist).
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { normaliseMcNumber } from '../../core/mc-number.js';
import { monitoringKeys, MAX_WATCH_ROWS, WatchListStore, type WatchItem } from '../../monitoring/index.js';
import { CliError, printJson, withContext } from '../context.js';
import { messageOf } from '../../thrown.js';

function mcOrFail(raw: string, where: string): string {
  const mc = normaliseMcNumber(raw);
  if (!mc) throw new CliError(`${where}: not an MC number: "${raw}"`);
  return mc;
}

/** One MC per line, optionally `,reference`; a header line starting with "mc" and blank lines are skipped. */
export function parseWatchFile(text: string, file: string): WatchItem[] {
  const items: WatchItem[] = [];
  text.split(/\r?\n/).forEach((line, index) => {
    const trimmed = line.trim();
    if (trimmed === '' || (index === 0 && /^mc/i.test(trimmed) && !normaliseMcNumber(trimmed.split(',')[0] ?? ''))) return;
    const [mcRaw = '', ...rest] = trimmed.split(',');
    const ref = rest.join(',').trim();
    items.push({ mc: mcOrFail(mcRaw, `${file} line ${index + 1}`), ref: ref === '' ? null : ref.slice(0, 256) });
  });
  return items;
}

export function register(program: Command): void {
  const watch = program.command('watch').description('maintain an account\'s monitoring watch list');

  watch.command('add <mc...>')
    .description('watch one or more carriers for the account')
    .requiredOption('--account <account>', 'account the watch list belongs to')
    .option('--ref <text>', 'your reference for the carrier(s)')
    .action(async (mcs: string[], options: { account: string; ref?: string }) => {
      const items = mcs.map((raw) => ({ mc: mcOrFail(raw, 'argument'), ref: options.ref ?? null }));
      await withContext(async ({ config, redis }) => {
        const store = new WatchListStore(redis, monitoringKeys(config.REDIS_PREFIX));
        const result = await store.add(options.account, items, config.MONITORING_MAX_WATCHED);
        if (result.kind === 'limit') throw new CliError(`account ${options.account} watches ${result.count} carriers; the limit is ${result.limit}`);
        printJson({ account: options.account, added: result.added, already_watched: result.already, watched: await store.count(options.account) });
      });
    });

  watch.command('remove <mc>')
    .description('stop watching a carrier for the account')
    .requiredOption('--account <account>', 'account the watch list belongs to')
    .action(async (raw: string, options: { account: string }) => {
      const mc = mcOrFail(raw, 'argument');
      await withContext(async ({ config, redis }) => {
        const store = new WatchListStore(redis, monitoringKeys(config.REDIS_PREFIX));
        if (!await store.remove(options.account, mc)) throw new CliError(`account ${options.account} does not watch MC ${mc}`);
        printJson({ account: options.account, mc, removed: true });
      });
    });

  watch.command('list')
    .description('print the account\'s watched carriers (JSON), in MC order')
    .requiredOption('--account <account>', 'account the watch list belongs to')
    .option('--after <mc>', 'start after this MC number (the next_cursor of a previous page)')
    .option('--limit <n>', 'carriers per page (1-100000)', '1000')
    .action(async (options: { account: string; after?: string; limit: string }) => {
      const limit = Number(options.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 100_000) throw new CliError('--limit must be an integer from 1 to 100000');
      const after = options.after === undefined ? null : mcOrFail(options.after, '--after');
      await withContext(async ({ config, redis }) => {
        const store = new WatchListStore(redis, monitoringKeys(config.REDIS_PREFIX));
        const page = await store.page(options.account, after, limit);
        printJson({ account: options.account, watched: await store.count(options.account), items: page.items, next_cursor: page.next });
      });
    });

  watch.command('import <file>')
    .description('watch every carrier of a file (one MC per line, optional ",reference"); every line is checked before anything is added')
    .requiredOption('--account <account>', 'account the watch list belongs to')
    .action(async (file: string, options: { account: string }) => {
      let text: string;
      try {
        text = await readFile(file, 'utf8');
      } catch (error) {
        throw new CliError(`${file}: ${messageOf(error)}`);
      }
      const items = parseWatchFile(text, file);
      if (items.length === 0) throw new CliError(`${file}: no MC numbers`);
      await withContext(async ({ config, redis }) => {
        const store = new WatchListStore(redis, monitoringKeys(config.REDIS_PREFIX));
        let added = 0;
        let already = 0;
        for (let start = 0; start < items.length; start += MAX_WATCH_ROWS) {
          const result = await store.add(options.account, items.slice(start, start + MAX_WATCH_ROWS), config.MONITORING_MAX_WATCHED);
          if (result.kind === 'limit') throw new CliError(`stopped after ${added} added: account ${options.account} would exceed its limit of ${result.limit} watched carriers`);
          added += result.added;
          already += result.already;
        }
        printJson({ account: options.account, added, already_watched: already, watched: await store.count(options.account) });
      });
    });
}
