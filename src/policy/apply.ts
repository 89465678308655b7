// What an account's policy does to a decision, pure: the rule set its account decides with is the floor with the
// policy's stricter knobs, carrying the policy's outcome map, which decide() applies (escalate to blocked, or
// waive one of the three waivable reasons). Compiled once per (policy version, rule set) and reused for every
// check: no per-request parsing.
import { identityRules } from '../core/identity-signals.js';
import type { AccountPolicyRules, PublishedRuleSet, RuleSet } from '../core/ruleset.js';
import type { Reason } from '../core/reasons.js';
import type { Outcome, PolicyDocument, PublishedPolicy } from './document.js';

/** The rule set a policy's account is decided under: same version number (it names the global rule set). */
export function effectiveRules(floor: RuleSet, policy: PolicyDocument): RuleSet {
  const minBipd = Math.max(floor.insurance.min_bipd_general_usd, policy.insurance?.min_bipd_usd ?? 0);
  return {
    ...floor,
    insurance: {
      ...floor.insurance,
      min_bipd_general_usd: minBipd,
      min_bipd_hazmat_usd: Math.max(floor.insurance.min_bipd_hazmat_usd, minBipd),
      cancellation_warning_days: Math.max(floor.insurance.cancellation_warning_days, policy.insurance?.cancellation_warning_days ?? 0),
    },
    authority: { new_authority_min_days: Math.max(floor.authority.new_authority_min_days, policy.authority?.min_age_days ?? 0) },
    mcs150: { max_age_months: Math.min(floor.mcs150.max_age_months, policy.mcs150?.max_age_months ?? Number.MAX_SAFE_INTEGER) },
    identity: stricterIdentity(identityRules(floor), policy.identity),
    safety: { conditional: floor.safety.conditional === 'block' || policy.safety?.conditional_rating === 'block' ? 'block' : 'review' },
  };
}

/** The floor's identity rules with the policy's: windows only lengthened, the shared-contact maximum only lowered. */
function stricterIdentity(floor: RuleSet['identity'], policy: PolicyDocument['identity']): RuleSet['identity'] {
  return {
    ...floor,
    contact_change_days: Math.max(floor.contact_change_days, policy?.contact_change_days ?? 0),
    address_change_days: Math.max(floor.address_change_days, policy?.address_change_days ?? 0),
    name_change_days: Math.max(floor.name_change_days, policy?.name_change_days ?? 0),
    reactivation_days: Math.max(floor.reactivation_days, policy?.reactivation_days ?? 0),
    shared_contact_max: Math.min(floor.shared_contact_max, policy?.shared_contact_max ?? Number.MAX_SAFE_INTEGER),
  };
}

/** A policy made ready for the hot path against one published rule set: the rule set its account decides with. */
export interface CompiledPolicy {
  policy: PublishedPolicy;
  ruleset: PublishedRuleSet & { policy: AccountPolicyRules };
}

export function compilePolicy(policy: PublishedPolicy, floor: PublishedRuleSet): CompiledPolicy {
  const block = new Set<Reason>();
  const pass = new Set<Reason>();
  const ruleOf: Partial<Record<Reason, string>> = {};
  for (const [reason, outcome] of Object.entries(policy.policy.outcomes ?? {}) as Array<[Reason, Outcome]>) {
    if (outcome === 'review') continue;
    (outcome === 'block' ? block : pass).add(reason);
    ruleOf[reason] = `outcomes.${reason}`;
  }
  // safety.conditional_rating block is the stricter reading, so it wins over an outcomes pass for the same reason.
  if (policy.policy.safety?.conditional_rating === 'block') {
    pass.delete('conditional_safety_rating');
    block.add('conditional_safety_rating');
    ruleOf.conditional_safety_rating ??= 'safety.conditional_rating';
  }
  const rules: AccountPolicyRules = { version: policy.version, sha256: policy.sha256, block, pass, ruleOf };
  return { policy, ruleset: { ...floor, rules: effectiveRules(floor.rules, policy.policy), policy: rules } };
}
