// The closed set of reason codes (DESIGN §1). Extend the table, never rename: callers key automation on these.
// Order in the table is the order reasons are reported: hard stops first.

export const REASONS = {
  do_not_use: { kind: 'hard_stop', description: 'On the do-not-use list' },
  ofac_sdn_match: { kind: 'hard_stop', description: 'Legal or DBA name matches an OFAC SDN or consolidated-list entry' },
  sam_exclusion: { kind: 'hard_stop', description: 'Name matches an active SAM.gov exclusion' },
  out_of_service_order: { kind: 'hard_stop', description: 'An out-of-service order is in force' },
  authority_not_active: { kind: 'hard_stop', description: 'No active for-hire property operating authority' },
  authority_revoked: { kind: 'hard_stop', description: 'Operating authority revoked or suspended (effective)' },
  unsatisfactory_safety_rating: { kind: 'hard_stop', description: 'FMCSA safety rating Unsatisfactory' },
  usdot_inactive: { kind: 'hard_stop', description: 'USDOT registration is not active' },
  carrier_record_unreadable: { kind: 'hard_stop', description: 'Part of the carrier\'s record in the public files could not be read (set aside at ingest); nothing can be vouched for until it is' },
  insurance_lapsed: { kind: 'hard_stop', description: 'No BIPD liability insurance in force (49 CFR 387.7: may not operate)' },
  insurance_below_federal_minimum: { kind: 'hard_stop', description: 'BIPD in force is below the amount 49 CFR 387.9 requires of this carrier' },
  possible_ofac_match: { kind: 'review', description: 'Name is similar to an OFAC entry; needs a human look' },
  possible_sam_exclusion: { kind: 'review', description: 'Name is similar to a SAM.gov exclusion; needs a human look' },
  ofac_consolidated_match: { kind: 'review', description: 'Name matches an OFAC consolidated (non-SDN) list entry: sectoral, CMIC, NS-PLC and similar restrictions, not blocking' },
  conditional_safety_rating: { kind: 'review', description: 'FMCSA safety rating Conditional' },
  insurance_not_on_file: { kind: 'review', description: 'No BIPD liability insurance on file' },
  insurance_below_minimum: { kind: 'review', description: 'BIPD on file is below the rule set minimum' },
  insurance_cancellation_pending: { kind: 'review', description: 'A BIPD policy cancellation takes effect soon' },
  new_authority: { kind: 'review', description: 'Authority granted fewer days ago than the rule set minimum' },
  authority_revocation_pending: { kind: 'review', description: 'A revocation or suspension of authority is pending' },
  mcs150_outdated: { kind: 'review', description: 'MCS-150 biennial update is overdue' },
  ambiguous_mc_number: { kind: 'review', description: 'The MC number maps to more than one USDOT record' },
  authority_records_disagree: { kind: 'review', description: "The census and the Carrier file disagree on whether the docket's authority is active" },
  prior_revocation_link: { kind: 'review', description: 'The census links this carrier to a previously revoked USDOT number (a chameleon-carrier sign)' },
  intrastate_only_census: { kind: 'review', description: 'The census says intrastate operation only, yet the docket holds interstate authority' },
  recent_contact_change: { kind: 'review', description: 'The carrier\'s phone, cell phone or email in the census changed within the rule set\'s window (a sign of an identity takeover)' },
  recent_address_change: { kind: 'review', description: 'The carrier\'s physical or mailing address in the census changed within the rule set\'s window' },
  recent_name_change: { kind: 'review', description: 'The carrier\'s legal or DBA name in the census changed within the rule set\'s window' },
  shared_contact: { kind: 'review', description: 'The carrier\'s phone or email is shared with more unrelated carriers than the rule set allows' },
  authority_reactivated: { kind: 'review', description: 'Authority active again recently after a revocation or a long inactivity' },
  carrier_not_found: { kind: 'not_found', description: 'The MC number is not in the current snapshot' },
  backend_unavailable: { kind: 'degraded', description: 'Redis unreachable or too slow; no verdict could be formed' },
  data_stale: { kind: 'degraded', description: 'Carrier data, or a source the rule set requires, is missing or too old' },
  ruleset_unavailable: { kind: 'degraded', description: 'No published rule set could be loaded' },
} as const satisfies Record<string, { kind: ReasonKind; description: string }>;

export type ReasonKind = 'hard_stop' | 'review' | 'not_found' | 'degraded';
export type Reason = keyof typeof REASONS;
// Non-empty, so z.enum(REASON_CODES) takes it as it is.
export const REASON_CODES = Object.keys(REASONS) as [Reason, ...Reason[]];

const ORDER = new Map(REASON_CODES.map((code, index) => [code, index]));

/** Sorts reasons into table order (hard stops first) and drops duplicates. */
export function orderReasons(reasons: Reason[]): Reason[] {
  // No reason or one (almost every check): nothing to dedupe or sort, so the caller's fresh array is the answer.
  if (reasons.length < 2) return reasons;
  return [...new Set(reasons)].sort((a, b) => (ORDER.get(a) ?? 0) - (ORDER.get(b) ?? 0));
}

export function reasonsOfKind(kind: ReasonKind): Reason[] {
  return REASON_CODES.filter((code) => REASONS[code].kind === kind);
}
