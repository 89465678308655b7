// The post-decision step of every verdict path (single check, batch row, monitoring): a `conditional` verdict is
// noted in the account's review queue and lifted when the account's active overrides cover every reason. Runs on
// the request path, so it never waits for Redis: the overrides come from the replica's registry, and the review
// sighting and any invalidation are written in the background. A verdict of any other tier costs one comparison.
import type { Verdict } from '../core/verdict.js';
import type { ReviewSource } from './review-store.js';
import { coverage } from './coverage.js';
import type { ActiveOverride } from './model.js';
import type { OverrideRegistry } from './registry.js';

export interface ReviewSightings {
  /** Notes a conditional verdict (covered or not) for the account's review queue; never throws, never waits. */
  note(account: string, verdict: Verdict, covered: boolean, source: ReviewSource): void;
}

export interface Invalidations {
  /** Records in the background that an override's bound facts changed; once per override per process. */
  report(override: ActiveOverride, verdict: Verdict): void;
}

/** The verdict lifted by `applied`: the spec's fields first, `overrides` just before the evidence (kept whole). */
export function lifted(verdict: Verdict, applied: readonly ActiveOverride[]): Verdict {
  return {
    eligible: true,
    found: verdict.found,
    tier: 'standard',
    reasons: [],
    degraded: false,
    decision_id: verdict.decision_id,
    ruleset_version: verdict.ruleset_version,
    policy_version: verdict.policy_version,
    data_as_of: verdict.data_as_of,
    evaluated_at: verdict.evaluated_at,
    cache_hit: verdict.cache_hit,
    mc_number: verdict.mc_number,
    carrier: verdict.carrier,
    overrides: applied.map((override) => override.view),
    evidence: verdict.evidence,
  };
}

export class OverrideEffect {
  constructor(
    private readonly registry: OverrideRegistry,
    private readonly sightings: ReviewSightings,
    private readonly invalidations: Invalidations,
    private readonly now: () => number,
  ) {}

  /** The verdict to answer and record for this account (and the check's or row's reference, null for none). */
  apply(verdict: Verdict, account: string, reference: string | null, source: ReviewSource): Verdict {
    if (verdict.tier !== 'conditional' || verdict.degraded) return verdict;
    const overrides = this.registry.forCarrier(account, verdict.mc_number);
    const result = coverage(verdict, overrides, reference, this.now());
    for (const override of result.invalid) this.invalidations.report(override, verdict);
    this.sightings.note(account, verdict, result.covered, source);
    return result.covered ? lifted(verdict, result.applied) : verdict;
  }
}
