// The identity rules (docs/identity.md): what the census history on a carrier record (`record.identity`, put there by
// the ingest from src/identity) means under a rule set. Pure, like decide(): a change is recent when the ingest that
// first saw it ran no more than the rule's window of days ago (a change first seen 31 days ago is clean under a
// 30-day window); shared_contact counts only unrelated carriers (exceptions are applied at ingest).
import type { CarrierRecord, IdentityChangeFact } from './carrier.js';
import { daysBetween, DAY_MS, toEpochMs } from './dates.js';
import type { Reason } from './reasons.js';
import { DEFAULT_IDENTITY_RULES, type RuleSet } from './ruleset.js';

type Rules = RuleSet['identity'];

/** Rule sets stored before the identity rules carry none (read back without the schema): the defaults apply. */
export function identityRules(rules: RuleSet): Rules {
  return (rules as Partial<RuleSet>).identity ?? DEFAULT_IDENTITY_RULES;
}

const CHANGES = [
  { part: 'contact', reason: 'recent_contact_change', window: 'contact_change_days' },
  { part: 'address', reason: 'recent_address_change', window: 'address_change_days' },
  { part: 'name', reason: 'recent_name_change', window: 'name_change_days' },
] as const satisfies ReadonlyArray<{ part: 'contact' | 'address' | 'name'; reason: Reason; window: keyof Rules }>;

function within(day: string, windowDays: number, nowMs: number): boolean {
  const ms = toEpochMs(day);
  return Number.isFinite(ms) && ms <= nowMs && daysBetween(ms, nowMs) <= windowDays;
}

/** The identity reasons a record raises at nowMs, in table order. */
export function identityReasons(record: CarrierRecord, rules: RuleSet, nowMs: number): Reason[] {
  const signals = record.identity;
  if (signals === undefined) return [];
  const identity = identityRules(rules);
  const out: Reason[] = [];
  for (const { part, reason, window } of CHANGES) {
    const change = signals[part];
    if (change !== undefined && within(change.first_seen_on, identity[window], nowMs)) out.push(reason);
  }
  if (signals.shared?.some((shared) => shared.unrelated > identity.shared_contact_max)) out.push('shared_contact');
  if (reactivationCounts(record, identity, nowMs)) out.push('authority_reactivated');
  return out;
}

function reactivationCounts(record: CarrierRecord, identity: Rules, nowMs: number): boolean {
  const reactivated = record.identity?.reactivated;
  if (reactivated === undefined || !within(reactivated.on, identity.reactivation_days, nowMs)) return false;
  if (reactivated.after === 'revocation') return true;
  return daysBetween(toEpochMs(reactivated.since), toEpochMs(reactivated.on)) >= identity.long_inactivity_days;
}

/** Evidence facts and rule of one identity reason (null when the record does not carry it). */
export function identityEvidence(reason: Reason, record: CarrierRecord, rules: RuleSet, nowMs: number):
  { facts: Record<string, string | number | null | readonly string[]>; rule: Record<string, number> } | null {
  const signals = record.identity;
  if (signals === undefined) return null;
  const identity = identityRules(rules);
  const change = CHANGES.find((entry) => entry.reason === reason);
  if (change !== undefined) {
    const fact: IdentityChangeFact | undefined = signals[change.part];
    if (fact === undefined) return null;
    return {
      facts: {
        field: fact.field, before: fact.old, after: fact.new, first_seen_on: fact.first_seen_on,
        days_ago: daysBetween(toEpochMs(fact.first_seen_on), nowMs),
      },
      rule: { [change.window]: identity[change.window] },
    };
  }
  if (reason === 'shared_contact') {
    const shared = (signals.shared ?? []).filter((item) => item.unrelated > identity.shared_contact_max);
    const first = shared[0];
    if (first === undefined) return null;
    return {
      facts: {
        field: first.field, value: first.value, unrelated_carriers: first.unrelated, other_dot_numbers: first.dots,
        ...(shared[1] ? { also: shared.slice(1).map((item) => `${item.field} ${item.value}: ${item.unrelated} unrelated carriers`) } : {}),
      },
      rule: { shared_contact_max: identity.shared_contact_max },
    };
  }
  if (reason === 'authority_reactivated' && signals.reactivated) {
    const { on, after, since } = signals.reactivated;
    return {
      facts: { reactivated_on: on, after, inactive_or_revoked_since: since },
      rule: after === 'revocation'
        ? { reactivation_days: identity.reactivation_days }
        : { reactivation_days: identity.reactivation_days, long_inactivity_days: identity.long_inactivity_days },
    };
  }
  return null;
}

/** Instants at which an identity reason ages out (for the monitoring schedule); some may be past. */
export function identityExpiries(record: CarrierRecord, rules: RuleSet): number[] {
  const signals = record.identity;
  if (signals === undefined) return [];
  const identity = identityRules(rules);
  const out: number[] = [];
  for (const { part, window } of CHANGES) {
    const change = signals[part];
    if (change !== undefined) out.push(toEpochMs(change.first_seen_on) + (identity[window] + 1) * DAY_MS);
  }
  if (signals.reactivated) out.push(toEpochMs(signals.reactivated.on) + (identity.reactivation_days + 1) * DAY_MS);
  return out.filter((ms) => Number.isFinite(ms));
}
