// The policy feature's parts, built for the composition root: the store, the per-replica book the checks decide
// with, and the routes (which need the eligibility service for the dry run).
import type { CallGate } from '../auth/call-gate.js';
import type { Config } from '../config.js';
import type { EligibilityService } from '../eligibility/index.js';
import type { Route } from '../http/types.js';
import type { Logger } from '../log.js';
import { monitoringKeys, WatchListStore } from '../monitoring/index.js';
import type { RedisClient } from '../redis/connection.js';
import type { LiveState } from '../state/live-state.js';
import type { PublishedRuleSet } from '../core/ruleset.js';
import { compilePolicy } from './apply.js';
import { PolicyBook } from './book.js';
import { dryRun } from './dry-run.js';
import { policyRoutes } from './route.js';
import { policyKeys, PolicyStore } from './store.js';

/** A dry run looks at most this many watched carriers (plus the MC numbers given). */
const DRY_RUN_MAX_WATCHED = 100_000;

export interface PolicyParts {
  store: PolicyStore;
  book: PolicyBook;
  /** For batch jobs: the policy version pinned at submit, and the rule set a pinned version decides with. */
  pins: {
    currentVersion(account: string): number | null;
    rulesetFor(account: string, version: number, ruleset: PublishedRuleSet): Promise<PublishedRuleSet | null>;
  };
  routes(parts: { gate: CallGate; eligibility: EligibilityService }): Route[];
}

export function policyWiring(redis: RedisClient, config: Config, state: LiveState, log: Logger): PolicyParts {
  const store = new PolicyStore(redis, policyKeys(config.REDIS_PREFIX));
  const book = new PolicyBook(store, () => state.ruleset, log, config.STATE_POLL_MS);
  const watch = new WatchListStore(redis, monitoringKeys(config.REDIS_PREFIX));
  const watched = async (account: string): Promise<string[]> => {
    const mcs: string[] = [];
    let after: string | null = null;
    do {
      const page = await watch.page(account, after, 1000);
      mcs.push(...page.items.map((item) => item.mc));
      after = page.next;
    } while (after !== null && mcs.length < DRY_RUN_MAX_WATCHED);
    return mcs;
  };
  return {
    store,
    book,
    pins: {
      currentVersion: (account) => book.current(account)?.version ?? null,
      async rulesetFor(account, version, ruleset) {
        const policy = await store.version(account, version);
        return policy ? compilePolicy(policy, ruleset).ruleset : null;
      },
    },
    routes: ({ gate, eligibility }) => policyRoutes({
      gate, store, log, floor: () => state.ruleset,
      dryRun: (account, candidate, mcs) => dryRun({
        floor: () => state.ruleset,
        current: (a) => book.current(a),
        watched,
        verdictUnder: async (mc, compiled) => {
          const verdict = await eligibility.evaluateUnder(mc, compiled?.ruleset ?? state.ruleset);
          return { eligible: verdict.eligible, tier: verdict.tier, reasons: verdict.reasons };
        },
      }, account, candidate, mcs),
    }),
  };
}
