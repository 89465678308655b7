// The rules that follow the federal regulations rather than a broker's policy: what insurance is in force, the
// amount 49 CFR 387.9 requires of a carrier, and the signs in two FMCSA records that need a human look. Pure.
// docs/verdict-rules.md gives the reading of each regulation and the cases.
import type { CarrierRecord } from './carrier.js';
import { startOfDayMs, toEpochMs } from './dates.js';
import type { RuleSet } from './ruleset.js';

/** 49 CFR 387.9, Table 1: for-hire property, non-hazardous, GVWR 10,001 lb or more. */
export const FEDERAL_MIN_GENERAL_USD = 750_000;

/** The regulation each federal rule rests on, as the evidence cites it. */
export const CITATIONS = {
  insurance_lapsed: '49 CFR 387.7',
  insurance_below_federal_minimum: '49 CFR 387.7, 49 CFR 387.9',
  insurance_not_on_file: '49 CFR 387.7',
  insurance_below_minimum: 'broker policy (49 CFR 387.9 is the floor)',
  insurance_cancellation_pending: '49 CFR 387.7(b)(2), 49 CFR 387.313(d)',
  authority_not_active: '49 U.S.C. 13901, 49 CFR 365',
  authority_revoked: '49 U.S.C. 13905, 49 CFR 365',
  authority_revocation_pending: '49 U.S.C. 13905',
  authority_records_disagree: '49 U.S.C. 13901',
  prior_revocation_link: '49 U.S.C. 13905(a), 49 CFR 385.1005',
  intrastate_only_census: '49 CFR 390.201, 49 U.S.C. 13901',
  usdot_inactive: '49 CFR 390.19, 49 CFR 390.201',
  out_of_service_order: '49 CFR 385.13, 49 CFR 386.72',
  unsatisfactory_safety_rating: '49 CFR 385.13',
  conditional_safety_rating: '49 CFR 385.3',
  mcs150_outdated: '49 CFR 390.19(b)(2)',
} as const;

/**
 * The BIPD amount 49 CFR 387.9 requires of this carrier: FMCSA's own figure for it (the Carrier file's BIPD
 * Required, which covers the $300k small-vehicle tier of 387.303 too) or, without one, $750,000; for a carrier the
 * census marks hazmat, at least the rule set's hazmat reading of 387.9 ($5M by default: the stricter class).
 */
export function federalMinimumBipd(record: CarrierRecord, rules: RuleSet): number {
  const fmcsa = record.insurance.bipd_required_usd;
  const base = fmcsa !== null && fmcsa > 0 ? fmcsa : FEDERAL_MIN_GENERAL_USD;
  return record.hazmat ? Math.max(base, rules.insurance.federal_min_bipd_hazmat_usd ?? 5_000_000) : base;
}

/** Whether the record's pending BIPD cancellation has taken effect by nowMs (on its effective day). */
export function cancellationTookEffect(record: CarrierRecord, nowMs: number): boolean {
  const cancellation = record.insurance.cancellation_effective_on;
  if (!cancellation) return false;
  const effective = toEpochMs(cancellation);
  return Number.isFinite(effective) && effective <= startOfDayMs(nowMs);
}

/**
 * BIPD in force at nowMs, in dollars (null: no source gave a figure). A cancellation that took effect since the
 * ingest removes its policies whatever the files still say: what is left is the tower without them (0 if unknown).
 */
export function bipdInForce(record: CarrierRecord, nowMs: number): number | null {
  const onFile = record.insurance.bipd_on_file_usd;
  if (onFile === null || !cancellationTookEffect(record, nowMs)) return onFile;
  return Math.min(onFile, record.insurance.bipd_after_cancellation_usd ?? 0);
}

/**
 * The census docket status and the Carrier file's authority status disagree: one FMCSA record says the authority
 * is active, the other that it is not. Pending counts as not active. Unknown when either side is missing.
 */
export function authorityRecordsDisagree(record: CarrierRecord): boolean {
  const censusStatus = record.census?.docket_status ?? null;
  if (censusStatus === null || record.authority.status === 'unknown') return false;
  return (censusStatus === 'A') !== (record.authority.status === 'active');
}

/** The census links the carrier to a revoked USDOT number other than its own (or names none while flagging one). */
export function hasPriorRevocationLink(record: CarrierRecord): boolean {
  const prior = record.census?.prior_revoke_dot ?? null;
  if (prior === null) return false;
  return prior === '' || prior !== record.dot;
}

/** CARRIER_OPERATION B or C (intrastate only) while the docket holds active interstate operating authority. */
export function intrastateOnlyWithAuthority(record: CarrierRecord): boolean {
  const operation = record.census?.carrier_operation ?? null;
  return (operation === 'B' || operation === 'C') && record.authority.status === 'active';
}
