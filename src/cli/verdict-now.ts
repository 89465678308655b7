// A carrier's verdict now for an account, as an operator tool needs it (before any override, not recorded):
// the current snapshot, the current rule set and the account's current policy, decided by the same assess()
// a batch row goes through (src/batch's PinnedScreening), with the live do-not-use list.
import { PinnedScreening } from '../batch/index.js';
import { isoTimestamp } from '../core/dates.js';
import { verdictOf, type Verdict } from '../core/verdict.js';
import { compilePolicy, policyKeys, PolicyStore } from '../policy/index.js';
import { currentRuleSet } from '../store/rulesets.js';
import type { CliContext } from './context.js';

export async function verdictNow(ctx: CliContext, mc: string, account: string): Promise<Verdict> {
  const floor = await currentRuleSet(ctx.redis, ctx.keys);
  const policy = floor === null ? null : await new PolicyStore(ctx.redis, policyKeys(ctx.config.REDIS_PREFIX)).current(account);
  const compiled = policy !== null && floor !== null ? compilePolicy(policy, floor) : null;
  const screening = new PinnedScreening(ctx.redis, ctx.keys, ctx.config.MAX_DATA_AGE_SECONDS, Date.now, {
    currentVersion: () => compiled?.policy.version ?? null, rulesetFor: async () => compiled?.ruleset ?? null,
  });
  const { decisions, nowMs } = await screening.decideAll(
    { snapshot_version: await ctx.redis.get(ctx.keys.snapshotCurrent), ruleset_version: floor?.version ?? null },
    [{ mc, asker: { account, reference: null } }],
    compiled === null ? null : { account, version: compiled.policy.version },
  );
  const decision = decisions[0];
  if (decision === undefined) throw new Error(`no decision for MC ${mc}`);
  return verdictOf(decision, mc, '', isoTimestamp(nowMs), false);
}
