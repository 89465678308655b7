// The verdict as the API returns it, and the one function that builds one from a decision: the decision's fields
// plus the four that change per request (decision id, evaluation time, cache hit, MC number).
import type { Decision } from './decide.js';
import type { Evidence } from './evidence.js';

/** The verdict as the API returns it: the spec's ten fields, then the additive ones (evidence last). */
export interface Verdict {
  eligible: boolean;
  found: boolean;
  tier: Decision['tier'];
  reasons: Decision['reasons'];
  degraded: boolean;
  decision_id: string;
  ruleset_version: number | null;
  /** The account policy's version the verdict was decided under; null for an account without a policy. */
  policy_version: number | null;
  data_as_of: string | null;
  evaluated_at: string;
  cache_hit: boolean;
  mc_number: string;
  carrier: Decision['carrier'];
  /**
   * Only on a conditional verdict lifted by the caller's account's active overrides and clearances (src/overrides):
   * the ones that cover its reasons. The evidence still holds every covered reason with its facts.
   */
  overrides?: VerdictOverride[];
  evidence: Evidence;
}

/** One override or clearance named by a verdict it lifted. */
export interface VerdictOverride {
  id: string;
  kind: 'clearance' | 'override';
  reasons: Decision['reasons'];
  reason_code: string;
  scope: { reference: string } | { until: string } | { until_change: true };
  expires_at: string;
  requested_by: string;
  approved_by: string | null;
  approved_at: string | null;
}

/** The one place that orders the verdict's fields (the eligibility feature's JSON templates rely on this order). */
export function verdictOf(decision: Decision, mc: string, id: string, evaluatedAt: string, cacheHit: boolean): Verdict {
  return {
    eligible: decision.eligible,
    found: decision.found,
    tier: decision.tier,
    reasons: decision.reasons,
    degraded: decision.degraded,
    decision_id: id,
    ruleset_version: decision.ruleset_version,
    policy_version: decision.policy_version,
    data_as_of: decision.data_as_of,
    evaluated_at: evaluatedAt,
    cache_hit: cacheHit,
    mc_number: mc,
    carrier: decision.carrier,
    evidence: decision.evidence,
  };
}
