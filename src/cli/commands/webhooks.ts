// `carrier-eligibility webhooks list|disable|replay`: operator view of the accounts' webhook endpoints (never
// their secrets), disabling one, and queueing re-deliveries (one event or a time range).
import type { Command } from 'commander';
import { parseInstant } from '../../core/dates.js';
import { EventStore, monitoringKeys, endpointView, REPLAY_QUEUE_MAX, WebhookStore } from '../../monitoring/index.js';
import { CliError, printJson, withContext } from '../context.js';

function instant(raw: string, flag: string): number {
  const parsed = parseInstant(raw, { nowMs: Date.now() });
  if ('error' in parsed) throw new CliError(`${flag}: ${parsed.error}`);
  return parsed.ms;
}

export function register(program: Command): void {
  const webhooks = program.command('webhooks').description('webhook endpoints of monitoring accounts');

  webhooks.command('list')
    .description('list endpoints (JSON, without secrets) with their delivery state; all accounts unless --account')
    .option('--account <account>', 'only this account')
    .action(async (options: { account?: string }) => {
      await withContext(async ({ config, redis }) => {
        const store = new WebhookStore(redis, monitoringKeys(config.REDIS_PREFIX));
        const accounts = options.account ? [options.account] : [...new Set((await store.index()).map((entry) => entry.account))].sort();
        const out = [];
        for (const account of accounts) {
          for (const endpoint of await store.list(account)) {
            const state = await store.state(account, endpoint.id);
            out.push({ account, ...endpointView(endpoint), failing_attempts: state.attempt, next_attempt_at: state.nextAt > 0 ? new Date(state.nextAt).toISOString() : null });
          }
        }
        printJson(out);
      });
    });

  webhooks.command('disable <id>')
    .description('stop deliveries to an endpoint (events keep accumulating in the account feed)')
    .requiredOption('--account <account>', 'account the endpoint belongs to')
    .action(async (id: string, options: { account: string }) => {
      await withContext(async ({ config, redis }) => {
        const store = new WebhookStore(redis, monitoringKeys(config.REDIS_PREFIX));
        const endpoint = await store.get(options.account, id);
        if (!endpoint) throw new CliError(`account ${options.account} has no endpoint ${id}`);
        printJson(endpointView(await store.setStatus(endpoint, 'disabled', 'operator')));
      });
    });

  webhooks.command('replay <id>')
    .description('deliver one event (--event) or every event of a time range (--from [--to]) to the endpoint again')
    .requiredOption('--account <account>', 'account the endpoint belongs to')
    .option('--event <eventId>', 'the event id (= webhook-id)')
    .option('--from <instant>', 'RFC 3339 date-time or YYYY-MM-DD')
    .option('--to <instant>', 'RFC 3339 date-time or YYYY-MM-DD (default now)')
    .action(async (id: string, options: { account: string; event?: string; from?: string; to?: string }) => {
      if ((options.event === undefined) === (options.from === undefined)) throw new CliError('give either --event or --from');
      await withContext(async ({ config, redis }) => {
        const mkeys = monitoringKeys(config.REDIS_PREFIX);
        const store = new WebhookStore(redis, mkeys);
        const events = new EventStore(redis, mkeys, config.MONITORING_EVENT_RETENTION_DAYS * 86_400_000);
        const endpoint = await store.get(options.account, id);
        if (!endpoint) throw new CliError(`account ${options.account} has no endpoint ${id}`);
        let ids: string[];
        if (options.event !== undefined) {
          const found = await events.byId(options.account, options.event);
          if (!found) throw new CliError(`no event ${options.event} is kept for account ${options.account}`);
          ids = [found.streamId];
        } else {
          const from = instant(options.from as string, '--from');
          const to = options.to === undefined ? Date.now() : instant(options.to, '--to');
          ids = (await events.range(options.account, from, to, 100_000)).map((entry) => entry.streamId);
        }
        const queued = await store.queueReplay(options.account, id, ids);
        if (queued.added === null) {
          throw new CliError(`endpoint ${id} has ${queued.queued} replays waiting; ${ids.length} more would pass the limit of ${REPLAY_QUEUE_MAX}: nothing queued`);
        }
        // An event already waiting for replay is not queued twice.
        printJson({
          account: options.account, endpoint: id, queued: queued.added, already_queued: ids.length - queued.added,
          replays_pending: queued.queued, status: endpoint.status,
        });
      });
    });
}
