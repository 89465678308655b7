// `carrier-eligibility keys create|list|disable|enable`: API keys are issued and managed only here.
import { InvalidArgumentError, type Command } from 'commander';
import { SCOPES, type Scope } from '../../auth/api-key.js';
import { KeyAdmin, publicRecord } from '../../auth/key-store.js';
import { parseInstant } from '../../core/dates.js';
import { CliError, printJson, withContext } from '../context.js';
import { isOneOf } from '../../core/one-of.js';

function parseScopes(value: string): Scope[] {
  const given = value.split(',').map((scope) => scope.trim()).filter(Boolean);
  const scopes = given.filter((scope) => isOneOf(SCOPES, scope));
  if (given.length === 0 || scopes.length < given.length) {
    throw new InvalidArgumentError(`scopes must be a comma list of ${SCOPES.join(', ')}`);
  }
  return [...new Set(scopes)];
}

function parseActor(value: string): string {
  const actor = value.trim();
  if (actor.length < 1 || actor.length > 128) throw new InvalidArgumentError('must be 1-128 characters');
  return actor;
}

function parsePositiveInt(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) throw new InvalidArgumentError('must be a positive integer');
  return number;
}

/** The one strict date parser: "2027-02-30" is refused (never rolled over), and so is an expiry already passed. */
function parseIsoDate(value: string): string {
  const parsed = parseInstant(value, { nowMs: Date.now(), notPast: true });
  if ('error' in parsed) throw new InvalidArgumentError(parsed.error);
  return parsed.iso;
}

export function register(program: Command): void {
  const keys = program.command('keys').description('issue and manage API keys');

  keys.command('create')
    .description('create a key; prints the plaintext key once, with its record, as one JSON object')
    .requiredOption('--account <account>', 'account (customer) the key belongs to')
    .requiredOption('--scopes <scopes>', `comma list of scopes: ${SCOPES.join(', ')}`, parseScopes)
    .option('--rate-per-minute <n>', 'budget per sliding minute (default: RATE_PER_MINUTE_DEFAULT)', parsePositiveInt)
    .option('--expires-at <iso>', 'expiry: YYYY-MM-DD or RFC 3339 date-time with a zone, in the future', parseIsoDate)
    .option('--label <label>', 'free-text label', '')
    .option('--actor <name>', 'bind the key to one person: overrides and approvals made with it act as that person', parseActor)
    .action(async (options: { account: string; scopes: Scope[]; ratePerMinute?: number; expiresAt?: string; label: string; actor?: string }) => {
      await withContext(async ({ config, redis, keys: redisKeys }) => {
        const { key, record } = await new KeyAdmin(redis, redisKeys).issue({
          account: options.account, label: options.label, scopes: options.scopes, expires_at: options.expiresAt,
          rate_per_minute: options.ratePerMinute ?? config.RATE_PER_MINUTE_DEFAULT, actor: options.actor,
        });
        printJson({ key, record: publicRecord(record) });
      });
    });

  keys.command('list')
    .description('list key records (never secrets) as a JSON array')
    .action(async () => {
      await withContext(async ({ redis, keys: redisKeys }) => printJson(await new KeyAdmin(redis, redisKeys).list()));
    });

  for (const [name, status] of [['disable', 'inactive'], ['enable', 'active']] as const) {
    keys.command(`${name} <id>`)
      .description(`${name} a key; every replica sees it within a second`)
      .action(async (id: string) => {
        await withContext(async ({ redis, keys: redisKeys }) => {
          const updated = await new KeyAdmin(redis, redisKeys).setStatus(id, status);
          if (!updated) throw new CliError(`no key with id ${id}`);
          printJson(publicRecord(updated));
        });
      });
  }
}
