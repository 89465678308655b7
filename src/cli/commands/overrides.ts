// `carrier-eligibility overrides list|show|revoke --account A`: an account's overrides and clearances from the
// operator's side, through the same store and use cases as /v1/overrides (a revocation here is the same
// compare-and-set, log entry, replica projection and monitoring event as DELETE /v1/overrides/{id}).
import { InvalidArgumentError, type Command } from 'commander';
import pino from 'pino';
import { normaliseMcNumber } from '../../core/mc-number.js';
import { AppError } from '../../errors.js';
import {
  buildOverrideAdmin, isOverrideStatus, OVERRIDE_ID, OVERRIDE_STATUSES, overrideView, pageOverrides, type OverrideAdmin, type OverrideStatus,
} from '../../overrides/index.js';
import { CliError, printJson, withContext, type CliContext } from '../context.js';
import { verdictNow } from '../verdict-now.js';

/** The overrides feature on the CLI's connection, deciding verdicts as src/cli/verdict-now.ts does. */
export function overrideAdmin(ctx: CliContext): OverrideAdmin {
  const log = pino({ level: 'warn', base: { service: 'carrier-eligibility', role: 'cli' } }, pino.destination(2));
  return buildOverrideAdmin({ redis: ctx.redis, config: ctx.config, log, now: Date.now, evaluate: (mc, account) => verdictNow(ctx, mc, account) });
}

export function parseLimit(max: number) {
  return (value: string): number => {
    const limit = Number(value);
    if (!Number.isInteger(limit) || limit < 1 || limit > max) throw new InvalidArgumentError(`must be an integer from 1 to ${max}`);
    return limit;
  };
}

function overrideId(value: string): string {
  if (!OVERRIDE_ID.test(value)) throw new InvalidArgumentError('must be an override id (ovr_ and 32 hex digits)');
  return value;
}

const unknown = (account: string, id: string) => new CliError(`account ${account} has no override ${id}`);

export function register(program: Command): void {
  const overrides = program.command('overrides').description("an account's overrides and sanctions clearances (docs/overrides.md)");

  overrides.command('list')
    .description("the account's overrides and clearances, newest first (JSON; status as of now)")
    .requiredOption('--account <account>', 'account the overrides belong to')
    .option('--status <status>', `only this status: ${OVERRIDE_STATUSES.join(', ')}`, (value: string) => {
      if (!isOverrideStatus(value)) throw new InvalidArgumentError(`must be one of ${OVERRIDE_STATUSES.join(', ')}`);
      return value;
    })
    .option('--mc <mc>', 'only this carrier', (value: string) => normaliseMcNumber(value) ?? (() => { throw new InvalidArgumentError('must be an MC number'); })())
    .option('--after <id>', 'start after this id (the next_cursor of a previous page)', overrideId)
    .option('--limit <n>', 'overrides per page (1-100000)', parseLimit(100_000), 1000)
    .action(async (options: { account: string; status?: OverrideStatus; mc?: string; after?: string; limit: number }) => {
      await withContext(async (ctx) => {
        const { store } = overrideAdmin(ctx);
        const now = Date.now();
        const page = pageOverrides(await store.list(options.account), {
          status: options.status ?? null, mc: options.mc ?? null, after: options.after ?? null, limit: options.limit,
        }, now);
        printJson({ account: options.account, items: page.items.map((record) => overrideView(record, now)), next_cursor: page.next_cursor });
      });
    });

  overrides.command('show <id>')
    .description('one override or clearance with its full history (every state change: actor, time, note, verdict before and after)')
    .requiredOption('--account <account>', 'account the override belongs to')
    .action(async (id: string, options: { account: string }) => {
      await withContext(async (ctx) => {
        const { store } = overrideAdmin(ctx);
        const found = OVERRIDE_ID.test(id) ? await store.get(options.account, id) : null;
        if (found === null) throw unknown(options.account, id);
        printJson(overrideView(found.record, Date.now(), await store.history(options.account, id)));
      });
    });

  overrides.command('revoke <id>')
    .description('revoke an active or pending override or clearance; every replica stops applying it within a second')
    .requiredOption('--account <account>', 'account the override belongs to')
    .requiredOption('--actor <name>', 'the person revoking it (1-128 characters), kept in its history')
    .option('--note <text>', 'why, kept in its history')
    .action(async (id: string, options: { account: string; actor: string; note?: string }) => {
      const actor = options.actor.trim();
      if (actor.length < 1 || actor.length > 128) throw new CliError('--actor must be 1-128 characters');
      await withContext(async (ctx) => {
        const { service } = overrideAdmin(ctx);
        if (!OVERRIDE_ID.test(id)) throw unknown(options.account, id);
        try {
          printJson(overrideView(await service.revoke(options.account, id, actor, options.note ?? null), Date.now()));
        } catch (error) {
          // Another account's override is as unknown as one that never existed; a closed one cannot be revoked.
          if (error instanceof AppError) throw error.kind === 'not_found' ? unknown(options.account, id) : new CliError(error.message);
          throw error;
        }
      });
    });
}
