// Pure mapping from a roster row and an assess() result to the row's report result. The same assess() and
// toVerdict() as the single check produce the verdict; this only names its outcome category.
import { normaliseMcNumber } from '../core/mc-number.js';
import type { Decision } from '../core/decide.js';
import { toVerdict } from '../decisions/index.js';
import { notScreened, type RowResult } from './csv.js';
import type { Outcome, StoredRow } from './types.js';

export type RowPlan = { kind: 'screen'; mc: string } | { kind: 'skip'; result: RowResult };

/** Rows without a usable MC number are not screened and draw no budget. */
export function planRow([mc]: StoredRow): RowPlan {
  if (mc === null || mc.trim() === '') return { kind: 'skip', result: notScreened('missing_mc_number') };
  const normalised = normaliseMcNumber(mc);
  return normalised === null ? { kind: 'skip', result: notScreened('invalid_mc_number') } : { kind: 'screen', mc: normalised };
}

export function outcomeOf(decision: Decision): Outcome {
  if (decision.degraded) return 'error';
  switch (decision.tier) {
    case 'preferred':
    case 'standard':
      return 'eligible';
    case 'conditional':
      return 'review';
    case 'blocked':
      return 'hard_stop';
    default:
      return 'not_found';
  }
}

export function screenedResult(decision: Decision, mc: string, nowMs: number): RowResult {
  const verdict = toVerdict(decision, mc, nowMs, false);
  return {
    outcome: outcomeOf(decision),
    eligible: verdict.eligible,
    tier: verdict.tier,
    reasons: verdict.reasons,
    decision_id: verdict.decision_id,
    ruleset_version: verdict.ruleset_version,
    data_as_of: verdict.data_as_of,
    evaluated_at: verdict.evaluated_at,
    verdict,
  };
}
