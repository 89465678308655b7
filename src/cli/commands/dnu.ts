// `carrier-eligibility dnu add|remove|list|import`: the broker's do-not-use list (Redis hash keys.doNotUse).
// Changes reach verdicts at the next ingest (which merges this hash into the snapshot).
import type { Command } from 'commander';
import { addDnu, importDnu, isDnuActive, loadDnuFile, parseDnuEntry, readDnuHash, removeDnu } from '../../ingest/dnu.js';
import { IngestError } from '../../ingest/errors.js';
import { SourceStats } from '../../ingest/sources/common.js';
import { normaliseMcNumber } from '../../core/mc-number.js';
import { CliError, printJson, withContext } from '../context.js';
import { messageOf } from '../../thrown.js';

const NOTE = 'applies on every replica within a second, and is folded into the next snapshot';

export function register(program: Command): void {
  const dnu = program.command('dnu').description(`maintain the do-not-use list (${NOTE})`);

  dnu.command('add <mc>')
    .description('add or replace an MC number on the do-not-use list')
    .requiredOption('--reason <text>', 'why (kept in the audit trail of every verdict)')
    .option('--expires-at <date>', 'YYYY-MM-DD or RFC 3339 date-time with a zone, in the future, after which the entry no longer applies')
    .action(async (mcRaw: string, options: { reason: string; expiresAt?: string }) => {
      // Strict date (no roll-over of 2026-02-30) and an expiry still ahead: a past one would add a ban that never applies.
      const parsed = parseDnuEntry(mcRaw, options.reason, '', options.expiresAt ?? '', Date.now(), true);
      if ('error' in parsed) throw new CliError(`${parsed.field}: ${parsed.error}`);
      await withContext(async ({ redis, keys }) => {
        await addDnu(redis, keys, parsed.mc, parsed.entry);
        printJson({ mc: parsed.mc, ...parsed.entry, note: NOTE });
      });
    });

  dnu.command('remove <mc>')
    .description('remove an MC number from the do-not-use list')
    .action(async (mcRaw: string) => {
      const mc = normaliseMcNumber(mcRaw);
      if (!mc) throw new CliError(`not an MC number: "${mcRaw}"`);
      await withContext(async ({ redis, keys }) => {
        if (!(await removeDnu(redis, keys, mc))) throw new CliError(`MC ${mc} is not on the do-not-use list`);
        printJson({ mc, removed: true, note: NOTE });
      });
    });

  dnu.command('list')
    .description('print the do-not-use list (JSON, with an active flag per entry)')
    .action(async () => {
      await withContext(async ({ redis, keys }) => {
        const entries = await readDnuHash(redis, keys);
        const now = Date.now();
        printJson([...entries].sort(([a], [b]) => Number(a) - Number(b))
          .map(([mc, entry]) => ({ mc, ...entry, active: isDnuActive(entry, now) })));
      });
    });

  dnu.command('import <file>')
    .description('add every row of a CSV (mc_number,reason,added_at,expires_at) to the list; all-or-nothing')
    .action(async (file: string) => {
      let entries;
      try {
        entries = await loadDnuFile(file, new SourceStats(), () => undefined);
      } catch (error) {
        if (error instanceof IngestError) throw new CliError(error.message);
        throw new CliError(`${file}: ${messageOf(error)}`);
      }
      await withContext(async ({ redis, keys }) => {
        await importDnu(redis, keys, entries);
        printJson({ imported: entries.size, note: NOTE });
      });
    });
}
