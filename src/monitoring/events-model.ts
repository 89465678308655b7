// The monitoring event model, pure: what a verdict is reduced to for comparison (VerdictSummary), when two
// verdicts differ, and the event bodies built from a difference. Used by the detector and by tests.
import type { CarrierRecord } from '../core/carrier.js';
import type { Decision, Tier } from '../core/decide.js';
import type { ReasonEvidence } from '../core/evidence.js';
import type { Reason } from '../core/reasons.js';
import type { Verdict, VerdictOverride } from '../core/verdict.js';
import { z } from 'zod';

export const EVENT_TYPES = [
  'verdict.changed', 'carrier.at_risk', 'screening.degraded', 'screening.restored',
  'identity.changed', 'review.opened', 'override.activated', 'override.expired', 'override.invalidated', 'override.revoked',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * What started the re-evaluation that found the change: new data, a do-not-use change, a rule set publish, the
 * passing of time, screening restored, an account policy publish, an override's or clearance's state change.
 */
export type Trigger = 'snapshot' | 'do_not_use' | 'ruleset' | 'time' | 'restored' | 'policy' | 'override';
export const TRIGGERS: readonly Trigger[] = ['snapshot', 'do_not_use', 'ruleset', 'time', 'restored', 'policy', 'override'];

/** The part of a verdict a change is measured on, plus what the event needs to explain it. */
export interface VerdictSummary {
  eligible: boolean;
  tier: Tier | null;
  reasons: Reason[];
  dot: string | null;
  evidence: ReasonEvidence[];
  ruleset_version: number | null;
  data_as_of: string | null;
}

export const verdictSummarySchema = z.object({
  eligible: z.boolean(),
  tier: z.enum(['preferred', 'standard', 'conditional', 'blocked']).nullable(),
  reasons: z.array(z.string()),
  dot: z.string().nullable(),
  evidence: z.array(z.object({
    reason: z.string(), source: z.string(), record_id: z.string().nullable(),
    facts: z.record(z.string(), z.unknown()), rule: z.record(z.string(), z.unknown()).nullable(),
  })),
  ruleset_version: z.number().nullable(),
  data_as_of: z.string().nullable(),
});

export function parseSummary(raw: string | null | undefined): VerdictSummary | null {
  if (!raw) return null;
  try {
    const parsed = verdictSummarySchema.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data as VerdictSummary : null;
  } catch {
    return null;
  }
}

export function summarise(decision: Decision): VerdictSummary {
  return {
    eligible: decision.eligible, tier: decision.tier, reasons: decision.reasons, dot: decision.carrier?.dot_number ?? null,
    evidence: decision.evidence.reasons, ruleset_version: decision.ruleset_version, data_as_of: decision.data_as_of,
  };
}

/** The same for a verdict as one account gets it (its policy, its overrides: a lifted verdict has no reasons). */
export function summariseVerdict(verdict: Verdict): VerdictSummary {
  return {
    eligible: verdict.eligible, tier: verdict.tier, reasons: verdict.reasons, dot: verdict.carrier?.dot_number ?? null,
    evidence: verdict.evidence.reasons, ruleset_version: verdict.ruleset_version, data_as_of: verdict.data_as_of,
  };
}

/** A change is an eligibility flip, a tier change or a different set of reasons; new data alone is not. */
export function verdictChanged(before: VerdictSummary, after: VerdictSummary): boolean {
  if (before.eligible !== after.eligible || before.tier !== after.tier) return true;
  if (before.reasons.length !== after.reasons.length) return true;
  const set = new Set(before.reasons);
  return after.reasons.some((reason) => !set.has(reason));
}

export interface ReasonChange {
  reason: Reason;
  evidence: ReasonEvidence | null;
}

export interface MonitoringEvent {
  id: string;
  type: EventType;
  /** The source's own date of the change where there is one (effective date, order date), else observed_at. */
  occurred_at: string;
  observed_at: string;
  mc: string | null;
  dot: string | null;
  trigger: Trigger | null;
  before: { eligible: boolean; tier: Tier | null; reasons: Reason[] } | null;
  after: { eligible: boolean; tier: Tier | null; reasons: Reason[] } | null;
  reasons_added: ReasonChange[];
  reasons_removed: ReasonChange[];
  decision_id: string | null;
  ruleset_version: number | null;
  data_as_of: string | null;
  /** carrier.at_risk: the date the pending cancellation or revocation takes effect. */
  effective_on?: string | null;
  /** screening.degraded / screening.restored: why verdicts are (were) withheld. */
  degraded_reasons?: Reason[];
  /** override.* events: the override or clearance (src/overrides). */
  override?: OverrideEventDetail;
  /** identity.changed: the census identity fields that changed, with before and after values. */
  changes?: IdentityChangeDetail[];
  /** review.opened: the review item's id. */
  review_id?: string;
  /** verdict.changed to a verdict the account's overrides and clearances lift: the ones that cover it. */
  overrides?: VerdictOverride[];
}

/** One changed identity field (src/identity): normalised values; before is null when only a fingerprint was kept. */
export interface IdentityChangeDetail {
  field: string;
  kind: string;
  before: string | null;
  after: string;
  /** The snapshot version whose ingest saw it, the census's as-of date and the day that ingest ran. */
  snapshot: string;
  seen_on: string;
  first_seen_on: string | null;
}

export interface OverrideEventDetail {
  id: string;
  kind: 'clearance' | 'override';
  status: string;
  reasons: Reason[];
  reason_code: string;
  scope: Record<string, unknown>;
  expires_at: string;
  actor: string | null;
  note: string | null;
}

const AT_RISK: ReadonlySet<Reason> = new Set(['insurance_cancellation_pending', 'authority_revocation_pending']);
const DATE_LIKE = /^\d{4}-\d{2}-\d{2}/;

/** The latest date-like fact of the added reasons' evidence that is not in the future: the source's own date. */
function sourceDate(added: ReasonChange[], observedMs: number): string | null {
  let best: number | null = null;
  for (const change of added) {
    for (const value of Object.values(change.evidence?.facts ?? {})) {
      if (typeof value !== 'string' || !DATE_LIKE.test(value)) continue;
      const ms = Date.parse(value.length === 10 ? `${value}T00:00:00Z` : value);
      if (Number.isFinite(ms) && ms <= observedMs && (best === null || ms > best)) best = ms;
    }
  }
  return best === null ? null : new Date(best).toISOString();
}

export interface ChangeContext {
  mc: string;
  trigger: Trigger;
  observedMs: number;
  decisionId: string;
  newId: () => string;
  /** The carrier record behind `after` (for at-risk effective dates), when found. */
  record: CarrierRecord | null;
  /** The overrides that lift `after` for the account, when they do. */
  overrides?: VerdictOverride[];
}

/** The events one carrier's change yields: verdict.changed, plus carrier.at_risk when a pending reason appears. */
export function changeEvents(before: VerdictSummary, after: VerdictSummary, context: ChangeContext): MonitoringEvent[] {
  const had = new Set(before.reasons);
  const has = new Set(after.reasons);
  const evidenceOf = (summary: VerdictSummary, reason: Reason) => summary.evidence.find((item) => item.reason === reason) ?? null;
  const added = after.reasons.filter((reason) => !had.has(reason)).map((reason) => ({ reason, evidence: evidenceOf(after, reason) }));
  const removed = before.reasons.filter((reason) => !has.has(reason)).map((reason) => ({ reason, evidence: evidenceOf(before, reason) }));
  const observed = new Date(context.observedMs).toISOString();
  const base = {
    observed_at: observed, mc: context.mc, dot: after.dot ?? before.dot, trigger: context.trigger,
    before: { eligible: before.eligible, tier: before.tier, reasons: before.reasons },
    after: { eligible: after.eligible, tier: after.tier, reasons: after.reasons },
    reasons_added: added, reasons_removed: removed, decision_id: context.decisionId,
    ruleset_version: after.ruleset_version, data_as_of: after.data_as_of,
  };
  const occurred = sourceDate(added, context.observedMs) ?? observed;
  const lifted = context.overrides && context.overrides.length > 0 ? { overrides: context.overrides } : {};
  const events: MonitoringEvent[] = [{ id: context.newId(), type: 'verdict.changed', occurred_at: occurred, ...base, ...lifted }];
  const risk = added.find((change) => AT_RISK.has(change.reason));
  if (risk) {
    const record = context.record;
    const effective = risk.reason === 'insurance_cancellation_pending'
      ? record?.insurance.cancellation_effective_on ?? null
      : record?.authority.revocation_pending_on ?? null;
    events.push({ id: context.newId(), type: 'carrier.at_risk', occurred_at: occurred, ...base, effective_on: effective });
  }
  return events;
}

/** One account-wide event: verdicts are withheld (a required source stale or missing, no rule set) or back. */
export function screeningEvent(type: 'screening.degraded' | 'screening.restored', reasons: Reason[], context: {
  id: string; observedMs: number; rulesetVersion: number | null; dataAsOf: string | null;
}): MonitoringEvent {
  const observed = new Date(context.observedMs).toISOString();
  return {
    id: context.id, type, occurred_at: observed, observed_at: observed, mc: null, dot: null, trigger: null,
    before: null, after: null, reasons_added: [], reasons_removed: [], decision_id: null,
    ruleset_version: context.rulesetVersion, data_as_of: context.dataAsOf, degraded_reasons: reasons,
  };
}
