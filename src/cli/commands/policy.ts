// `carrier-eligibility policy show|publish|dry-run --account A`: an account's carrier policy from the operator's
// side, held against the same floor and decided by the same decide() as the API.
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { PinnedScreening } from '../../batch/index.js';
import { normaliseMcNumber } from '../../core/mc-number.js';
import type { PublishedRuleSet } from '../../core/ruleset.js';
import { monitoringKeys, WatchListStore } from '../../monitoring/index.js';
import { dryRun, policyKeys, PolicyStore, policyView, validatePolicy, type CompiledPolicy, type PolicyDocument } from '../../policy/index.js';
import { currentRuleSet } from '../../store/rulesets.js';
import { CliError, printJson, withContext, type CliContext } from '../context.js';
import { messageOf } from '../../thrown.js';

async function readDocument(file: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw new CliError(`${file}: ${error instanceof SyntaxError ? 'not valid JSON' : messageOf(error)}`);
  }
}

async function floorOf(ctx: CliContext): Promise<PublishedRuleSet> {
  const floor = await currentRuleSet(ctx.redis, ctx.keys);
  if (!floor) throw new CliError('no rule set has been published (run: carrier-eligibility rules publish --default)');
  return floor;
}

function validated(file: string, body: unknown, floor: PublishedRuleSet): PolicyDocument {
  const result = validatePolicy(body, floor.rules);
  if (!result.ok) throw new CliError(`${file}: ${result.errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`);
  return result.policy;
}

export function register(program: Command): void {
  const policy = program.command('policy').description("an account's carrier policy: never looser than the rule set (docs/policy.md)");

  policy.command('show')
    .description("print the account's current policy, or one version")
    .requiredOption('--account <account>', 'account name')
    .option('--version <n>', 'a published version', (v) => Number(v))
    .action(async (options: { account: string; version?: number }) => {
      await withContext(async (ctx) => {
        const store = new PolicyStore(ctx.redis, policyKeys(ctx.config.REDIS_PREFIX));
        const found = options.version === undefined ? await store.current(options.account) : await store.version(options.account, options.version);
        if (!found) throw new CliError(`account ${options.account} has no policy${options.version === undefined ? '' : ` version ${options.version}`}`);
        printJson(policyView(found));
      });
    });

  policy.command('publish <file>')
    .description('validate a policy JSON file against the rule set in force and publish it as the next version')
    .requiredOption('--account <account>', 'account name')
    .option('--actor <name>', 'who publishes it, for the record')
    .action(async (file: string, options: { account: string; actor?: string }) => {
      const body = await readDocument(file);
      await withContext(async (ctx) => {
        const document = validated(file, body, await floorOf(ctx));
        const store = new PolicyStore(ctx.redis, policyKeys(ctx.config.REDIS_PREFIX));
        printJson(policyView(await store.publish(options.account, document, options.actor ?? 'cli')));
      });
    });

  policy.command('dry-run <file>')
    .description("which verdicts the policy in FILE would change, for the account's watched carriers and --mc numbers")
    .requiredOption('--account <account>', 'account name')
    .option('--mc <mc...>', 'MC numbers to include besides the watched carriers', [])
    .action(async (file: string, options: { account: string; mc: string[] }) => {
      const body = await readDocument(file);
      await withContext(async (ctx) => {
        const floor = await floorOf(ctx);
        const candidate = validated(file, body, floor);
        const mcs = options.mc.map((raw) => normaliseMcNumber(raw) ?? (() => { throw new CliError(`--mc ${raw}: not an MC number`); })());
        const store = new PolicyStore(ctx.redis, policyKeys(ctx.config.REDIS_PREFIX));
        const current = await store.current(options.account);
        const snapshotVersion = await ctx.redis.get(ctx.keys.snapshotCurrent);
        const watch = new WatchListStore(ctx.redis, monitoringKeys(ctx.config.REDIS_PREFIX));
        const verdictUnder = async (mc: string, compiled: CompiledPolicy | null) => {
          // The same pinned screening a batch row gets, with the compiled policy standing in for a pinned version.
          const screening = new PinnedScreening(ctx.redis, ctx.keys, ctx.config.MAX_DATA_AGE_SECONDS, Date.now, {
            currentVersion: () => null, rulesetFor: async () => compiled?.ruleset ?? null,
          });
          const { decisions } = await screening.decideAll({ snapshot_version: snapshotVersion, ruleset_version: floor.version }, [{ mc, asker: { account: options.account, reference: null } }],
            compiled ? { account: options.account, version: compiled.policy.version } : null);
          const decision = decisions[0];
          if (!decision) throw new Error(`no decision for ${mc}`);
          return { eligible: decision.eligible, tier: decision.tier, reasons: decision.reasons };
        };
        printJson(await dryRun({
          floor: () => floor,
          current: () => current,
          watched: async (account) => {
            const all: string[] = [];
            let after: string | null = null;
            do {
              const page = await watch.page(account, after, 1000);
              all.push(...page.items.map((item) => item.mc));
              after = page.next;
            } while (after !== null);
            return all;
          },
          verdictUnder,
        }, options.account, candidate, mcs));
      });
    });
}
