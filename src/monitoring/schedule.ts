// When may a carrier's verdict change by the passing of time alone? decide() reads the clock for five rules:
// a revocation taking effect, a pending revocation's effective day, a new authority aging out, a BIPD
// cancellation entering its warning window and taking effect, and an MCS-150 going out of date, an identity signal ageing out (the detector adds a
// do-not-use entry's expiry). The earliest such instant after now is kept in a sorted set per shard; the
// detector re-decides the carrier then. Pure.
import type { CarrierRecord } from '../core/carrier.js';
import { DAY_MS, toEpochMs } from '../core/dates.js';
import { identityExpiries } from '../core/identity-signals.js';
import type { RuleSet } from '../core/ruleset.js';

function addMonths(isoDate: string, months: number): number {
  const ms = toEpochMs(isoDate);
  if (!Number.isFinite(ms)) return Number.NaN;
  const date = new Date(ms);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + months, date.getUTCDate());
}

/** Every instant at which one of the time rules may flip for this record (some may be in the past). */
export function timeCandidates(record: CarrierRecord, rules: RuleSet): number[] {
  const out: number[] = [];
  const { authority, insurance } = record;
  if (authority.revoked_on) out.push(toEpochMs(authority.revoked_on));
  if (authority.revocation_pending_on) out.push(toEpochMs(authority.revocation_pending_on));
  if (authority.granted_on) out.push(toEpochMs(authority.granted_on) + rules.authority.new_authority_min_days * DAY_MS);
  if (insurance.cancellation_effective_on) {
    const effective = toEpochMs(insurance.cancellation_effective_on);
    // It enters its warning window, then takes effect on its day (the policy leaves the tower in force).
    out.push(effective - rules.insurance.cancellation_warning_days * DAY_MS, effective);
  }
  if (record.mcs150_date) {
    // monthsBefore() works on calendar months, so the flip lands on this day or the next (month-end dates).
    const due = addMonths(record.mcs150_date, rules.mcs150.max_age_months);
    out.push(due, due + DAY_MS);
  }
  out.push(...identityExpiries(record, rules));
  return out.filter((ms) => Number.isFinite(ms));
}

/** The earliest candidate after nowMs, or null when time alone will not change the verdict. */
export function nextChangeAt(record: CarrierRecord, rules: RuleSet, nowMs: number): number | null {
  let next: number | null = null;
  for (const ms of timeCandidates(record, rules)) if (ms > nowMs && (next === null || ms < next)) next = ms;
  return next;
}
