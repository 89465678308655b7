// decide(): the one function that turns a snapshot lookup, a rule set and a clock reading into a verdict.
// Pure: no Redis, HTTP, process or clock. Fail closed: anything missing or doubtful withholds eligibility.
import type { CarrierLookup, CarrierRecord, SnapshotMeta } from './carrier.js';
import { buildEvidence, type Evidence } from './evidence.js';
import { daysBetween, monthsBefore, startOfDayMs, toEpochMs, DAY_MS } from './dates.js';
import { orderReasons, REASONS, type Reason } from './reasons.js';
import { watchlistReason } from './watchlist-reasons.js';
import {
  authorityRecordsDisagree, bipdInForce, cancellationTookEffect, federalMinimumBipd, hasPriorRevocationLink, intrastateOnlyWithAuthority,
} from './federal-rules.js';
import { identityReasons } from './identity-signals.js';
import type { PublishedRuleSet, RuleSet } from './ruleset.js';
import { requiredBipd } from './insurance.js';

export type Tier = 'preferred' | 'standard' | 'conditional' | 'blocked';

export interface DecisionInput {
  /** null when the backend could not be asked (Redis down or too slow). */
  lookup: CarrierLookup | null;
  ruleset: PublishedRuleSet | null;
  snapshot: SnapshotMeta | null;
  backendAvailable: boolean;
  maxDataAgeSeconds: number;
  nowMs: number;
  /**
   * The MC number is on the live do-not-use list right now. The snapshot carries the list as of its ingest; this
   * makes an `dnu add` count at once instead of at the next ingest. Do-not-use always wins.
   */
  onDoNotUseList?: boolean;
}

export interface Decision {
  eligible: boolean;
  found: boolean;
  tier: Tier | null;
  reasons: Reason[];
  degraded: boolean;
  ruleset_version: number | null;
  /** The account policy's version the decision was made under, or null for the global rule set alone. */
  policy_version: number | null;
  data_as_of: string | null;
  carrier: { dot_number: string | null; legal_name: string; dba_name: string | null } | null;
  /** Per reason the source and record behind it, plus the sources screened against (src/core/evidence.ts). */
  evidence: Evidence;
}

/** Why the data behind a verdict cannot be trusted right now; [] when it can. */
export function degradedReasons(input: Omit<DecisionInput, 'lookup'>): Reason[] {
  const reasons: Reason[] = [];
  if (!input.backendAvailable) reasons.push('backend_unavailable');
  if (!input.ruleset) reasons.push('ruleset_unavailable');
  if (!input.snapshot || isSnapshotStale(input.snapshot, input.ruleset?.rules ?? null, input.maxDataAgeSeconds, input.nowMs)) {
    reasons.push('data_stale');
  }
  return reasons;
}

// A rule set's per-source age limits as a list, built once per rule set object: Object.entries on every check
// was 1.3 % of the cache-hot request's busy time in a CPU profile; decideWithoutEvidence() 0.94-1.1 µs → 0.53 µs
// in bench/micro (bench/README.md). Rule sets are immutable once published.
const maxAgeLists = new WeakMap<RuleSet, Array<[keyof SnapshotMeta['sources'], number | undefined]>>();
function maxAgeEntries(rules: RuleSet): Array<[keyof SnapshotMeta['sources'], number | undefined]> {
  let list = maxAgeLists.get(rules);
  if (list === undefined) {
    list = Object.entries(rules.sources.max_age_days) as Array<[keyof SnapshotMeta['sources'], number | undefined]>;
    maxAgeLists.set(rules, list);
  }
  return list;
}

function isSnapshotStale(snapshot: SnapshotMeta, rules: RuleSet | null, maxAgeSeconds: number, nowMs: number): boolean {
  return nowMs > freshUntilMs(snapshot, rules, maxAgeSeconds);
}

// The last instant a snapshot is fresh under a rule set, worked out once per (snapshot, rule set, age limit):
// staleness only compares the clock with dates fixed at publication, so every check of a snapshot compared it
// with the same eleven deadlines (a Map lookup each for the parsed dates). 0.6–1 % of a cache-hot request in
// `perf`. Snapshot and rule set objects are immutable once published.
const freshUntil = new WeakMap<SnapshotMeta, { rules: RuleSet | null; maxAgeSeconds: number; untilMs: number }>();

/** Epoch ms after which the snapshot is stale; -Infinity when it already is whatever the clock says. */
function freshUntilMs(snapshot: SnapshotMeta, rules: RuleSet | null, maxAgeSeconds: number): number {
  const memo = freshUntil.get(snapshot);
  if (memo !== undefined && memo.rules === rules && memo.maxAgeSeconds === maxAgeSeconds) return memo.untilMs;
  const untilMs = computeFreshUntilMs(snapshot, rules, maxAgeSeconds);
  freshUntil.set(snapshot, { rules, maxAgeSeconds, untilMs });
  return untilMs;
}

/**
 * Stale means: the snapshot's as-of is unreadable or older than the age limit, a required source is missing,
 * or a present source with an age limit has an unreadable as-of or one older than its limit. Each "older
 * than" is `now − asOf > limit`, so the snapshot is fresh up to and including the smallest `asOf + limit`.
 */
function computeFreshUntilMs(snapshot: SnapshotMeta, rules: RuleSet | null, maxAgeSeconds: number): number {
  const asOf = toEpochMs(snapshot.data_as_of);
  if (!Number.isFinite(asOf)) return -Infinity;
  let untilMs = asOf + maxAgeSeconds * 1000;
  if (!rules) return untilMs;
  for (const source of rules.sources.required) {
    if (!snapshot.sources[source]?.present) return -Infinity;
  }
  for (const [source, maxDays] of maxAgeEntries(rules)) {
    const freshness = snapshot.sources[source];
    if (!freshness?.present || maxDays === undefined) continue;
    const sourceAsOf = freshness.as_of ? toEpochMs(freshness.as_of) : NaN;
    if (!Number.isFinite(sourceAsOf)) return -Infinity;
    untilMs = Math.min(untilMs, sourceAsOf + maxDays * DAY_MS);
  }
  return untilMs;
}

/** The reasons a found carrier's record raises under a rule set, in any order. */
export function carrierReasons(record: CarrierRecord, rules: RuleSet, nowMs: number): Reason[] {
  const reasons: Reason[] = [];
  const today = startOfDayMs(nowMs);

  for (const hit of record.hits) {
    // Hard stop only for a strong entity match on a prohibiting list or a confirmed person (watchlist-reasons.ts).
    const reason = watchlistReason(hit, rules);
    if (reason) reasons.push(reason);
  }

  if (record.oos_order) reasons.push('out_of_service_order');
  if (record.usdot_status !== 'A') reasons.push('usdot_inactive');
  if (record.unreadable?.length) reasons.push('carrier_record_unreadable');

  const { authority } = record;
  // Only property authority authorises general freight: an active passenger-only or household-goods-only one does not.
  if (authority.status !== 'active' || authority.scope) reasons.push('authority_not_active');
  if (authority.revoked_on && toEpochMs(authority.revoked_on) <= nowMs) reasons.push('authority_revoked');
  if (authority.revocation_pending_on !== null) {
    const effective = toEpochMs(authority.revocation_pending_on);
    reasons.push(Number.isFinite(effective) && effective <= today ? 'authority_revoked' : 'authority_revocation_pending');
  }
  if (authority.granted_on) {
    const granted = toEpochMs(authority.granted_on);
    if (!Number.isFinite(granted) || daysBetween(granted, nowMs) < rules.authority.new_authority_min_days) {
      reasons.push('new_authority');
    }
  }
  if (authorityRecordsDisagree(record)) reasons.push('authority_records_disagree');
  if (hasPriorRevocationLink(record)) reasons.push('prior_revocation_link');
  if (intrastateOnlyWithAuthority(record)) reasons.push('intrastate_only_census');
  if (record.identity !== undefined) reasons.push(...identityReasons(record, rules, nowMs));

  if (record.safety_rating === 'U') reasons.push('unsatisfactory_safety_rating');
  if (record.safety_rating === 'C') reasons.push('conditional_safety_rating');

  // 49 CFR 387.7: no operating without the 387.9 amount in force (hard stops); the broker's higher minimum and an
  // unknown figure are reviews. insurance_not_on_file and insurance_below_minimum keep their meaning alongside.
  const inForce = bipdInForce(record, nowMs);
  if (inForce === null) reasons.push('insurance_not_on_file');
  else if (inForce <= 0) reasons.push('insurance_lapsed', 'insurance_not_on_file');
  else {
    if (inForce < federalMinimumBipd(record, rules)) reasons.push('insurance_below_federal_minimum');
    if (inForce < requiredBipd(record, rules)) reasons.push('insurance_below_minimum');
  }
  const cancellation = record.insurance.cancellation_effective_on;
  if (cancellation && !cancellationTookEffect(record, nowMs)) {
    const effective = toEpochMs(cancellation);
    const horizon = today + rules.insurance.cancellation_warning_days * DAY_MS;
    if (Number.isFinite(effective) && effective <= horizon) reasons.push('insurance_cancellation_pending');
  }

  const filed = record.mcs150_date ? toEpochMs(record.mcs150_date) : NaN;
  if (!Number.isFinite(filed) || filed < monthsBefore(nowMs, rules.mcs150.max_age_months)) reasons.push('mcs150_outdated');

  return reasons;
}

function isHardStop(reason: Reason, rules: RuleSet): boolean {
  if (reason === 'conditional_safety_rating') return rules.safety.conditional === 'block';
  return REASONS[reason].kind === 'hard_stop';
}

/** The tier a found carrier's reasons give at nowMs (the ingest's verdict mix uses it; decide() below does the same). */
export function tierOf(record: CarrierRecord | null, reasons: readonly Reason[], rules: RuleSet, nowMs: number): Tier {
  if (reasons.some((reason) => isHardStop(reason, rules))) return 'blocked';
  return reasons.length > 0 ? 'conditional' : record !== null && isPreferred(record, rules, nowMs) ? 'preferred' : 'standard';
}

function isPreferred(record: CarrierRecord, rules: RuleSet, nowMs: number): boolean {
  const { preferred } = rules;
  if (preferred.requires_satisfactory_rating && record.safety_rating !== 'S') return false;
  return (bipdInForce(record, nowMs) ?? 0) >= preferred.min_bipd_usd;
}

export function decide(input: DecisionInput): Decision {
  return withEvidence(input, decideWithoutEvidence(input));
}

/** A decision's fields except its evidence: what a caller holding a decision for the same inputs compares. */
export type DecisionFields = Omit<Decision, 'evidence'> & {
  /** Reasons an account policy waived (pass), for the evidence; absent when none. */
  waived?: readonly Reason[];
};

/** The evidence for decideWithoutEvidence(input), attached: decide(input) is exactly this. */
export function withEvidence(input: DecisionInput, decision: DecisionFields): Decision {
  return {
    ...decision,
    evidence: buildEvidence({
      reasons: decision.reasons, lookup: input.lookup, rules: input.ruleset?.rules ?? null, snapshot: input.snapshot,
      onDoNotUseList: input.onDoNotUseList === true, maxDataAgeSeconds: input.maxDataAgeSeconds, nowMs: input.nowMs,
      policy: input.ruleset?.policy ?? null, waived: decision.waived ?? null,
    }),
  };
}

/**
 * decide() without building the evidence. The evidence is a pure function of the reasons and the inputs, so a
 * caller that already holds a decision for the same lookup, snapshot, rule set and do-not-use flag with these
 * same fields can reuse that decision's evidence (the cache-hot verdict templates do: bench/README.md).
 */
export function decideWithoutEvidence(input: DecisionInput): DecisionFields {
  // Runs on every check, cache-hot ones included, so it allocates only what it returns: no spread base object,
  // no do-not-use array, no Set for the usual zero or one reason (orderReasons).
  const rulesetVersion = input.ruleset?.version ?? null;
  const policyVersion = input.ruleset?.policy?.version ?? null;
  const dataAsOf = input.snapshot?.data_as_of ?? null;
  const degraded = degradedReasons(input);
  if (degraded.length > 0 || !input.lookup || !input.ruleset) {
    return {
      eligible: false, found: false, tier: null, carrier: null, degraded: true,
      reasons: orderReasons(degraded.length > 0 ? degraded : ['backend_unavailable']), ruleset_version: rulesetVersion, policy_version: policyVersion, data_as_of: dataAsOf,
    };
  }
  const { lookup } = input;
  const rules = input.ruleset.rules;
  if (lookup.kind === 'not_found') {
    return {
      eligible: false, found: false, tier: null, carrier: null, degraded: false, reasons: ['carrier_not_found'],
      ruleset_version: rulesetVersion, policy_version: policyVersion, data_as_of: dataAsOf,
    };
  }
  const onDoNotUseList = input.onDoNotUseList === true;
  if (lookup.kind === 'ambiguous') {
    return {
      eligible: false, found: true, tier: onDoNotUseList ? 'blocked' : 'conditional', carrier: null, degraded: false,
      reasons: orderReasons(onDoNotUseList ? ['do_not_use', 'ambiguous_mc_number'] : ['ambiguous_mc_number']),
      ruleset_version: rulesetVersion, policy_version: policyVersion, data_as_of: dataAsOf,
    };
  }
  const { record } = lookup;
  const found = carrierReasons(record, rules, input.nowMs);
  if (onDoNotUseList) found.push('do_not_use');
  const { policy } = input.ruleset;
  let reasons = orderReasons(found);
  let waived: Reason[] | undefined;
  if (policy !== undefined && policy.pass.size > 0 && reasons.some((reason) => policy.pass.has(reason))) {
    waived = reasons.filter((reason) => policy.pass.has(reason));
    reasons = reasons.filter((reason) => !policy.pass.has(reason));
  }
  const tier: Tier = reasons.some((reason) => isHardStop(reason, rules) || policy?.block.has(reason) === true)
    ? 'blocked'
    : reasons.length > 0 ? 'conditional' : isPreferred(record, rules, input.nowMs) ? 'preferred' : 'standard';
  const fields: DecisionFields = {
    eligible: reasons.length === 0,
    found: true,
    tier,
    reasons,
    degraded: false,
    carrier: { dot_number: record.dot, legal_name: record.legal_name, dba_name: record.dba_name },
    ruleset_version: rulesetVersion,
    policy_version: policyVersion,
    data_as_of: dataAsOf,
  };
  if (waived !== undefined) fields.waived = waived;
  return fields;
}
