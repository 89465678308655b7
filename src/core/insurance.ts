// The insurance floor a carrier is held to: shared by decide() (the reason) and the evidence (the rule it names).
import type { CarrierRecord } from './carrier.js';
import type { RuleSet } from './ruleset.js';

/** The minimum BIPD for this carrier: the rule set's floor or FMCSA's own requirement, whichever is higher. */
export function requiredBipd(record: CarrierRecord, rules: RuleSet): number {
  const floor = record.hazmat ? rules.insurance.min_bipd_hazmat_usd : rules.insurance.min_bipd_general_usd;
  return Math.max(floor, record.insurance.bipd_required_usd ?? 0);
}
