// The account policy's pure parts: what a document may say against the floor, and what it does to a decision.
import { describe, expect, it } from 'vitest';
import type { CarrierLookup } from '../../src/core/carrier.js';
import { decide } from '../../src/core/decide.js';
import { DEFAULT_RULE_SET, type PublishedRuleSet } from '../../src/core/ruleset.js';
import { compilePolicy } from '../../src/policy/apply.js';
import { policyHash, validatePolicy, type PolicyDocument } from '../../src/policy/document.js';
import { cleanCarrier } from '../helpers/harness.js';

// No source required: these cases are about the policy's rules, not data freshness.
const FLOOR: PublishedRuleSet = { version: 4, published_at: '2026-11-01T00:00:00.000Z', rules: { ...DEFAULT_RULE_SET, sources: { required: [], max_age_days: {} } } };
const NOW = Date.parse('2026-11-28T12:00:00Z');
const day = (n: number) => new Date(NOW - n * 86_400_000).toISOString().slice(0, 10);
const snapshot = { version: 'v1', data_as_of: new Date(NOW).toISOString(), created_at: new Date(NOW).toISOString(), carrier_count: 1, sources: {} };

function under(policy: PolicyDocument | null, lookup: CarrierLookup) {
  const ruleset = policy === null ? FLOOR : compilePolicy({ account: 'a', version: 3, sha256: policyHash(policy), published_at: '', published_by: null, policy }, FLOOR).ruleset;
  return decide({ lookup, ruleset, snapshot, backendAvailable: true, maxDataAgeSeconds: 10 ** 9, nowMs: NOW });
}
const found = (overrides: Parameters<typeof cleanCarrier>[1]): CarrierLookup => ({ kind: 'found', record: cleanCarrier('1', overrides) });

describe('a policy document', () => {
  it('may only be stricter than the floor, and every loosening is named at once', () => {
    const result = validatePolicy({
      insurance: { min_bipd_usd: 500_000, cancellation_warning_days: 10 }, authority: { min_age_days: 30 }, mcs150: { max_age_months: 36 },
      outcomes: { possible_ofac_match: 'pass', out_of_service_order: 'review', insurance_below_minimum: 'pass', no_such_reason: 'block' },
    }, DEFAULT_RULE_SET);
    expect(result.ok).toBe(false);
    const paths = result.ok ? [] : result.errors.map((error) => error.path).sort();
    expect(paths).toEqual([
      'authority.min_age_days', 'insurance.cancellation_warning_days', 'insurance.min_bipd_usd', 'mcs150.max_age_months',
      'outcomes.insurance_below_minimum', 'outcomes.no_such_reason', 'outcomes.out_of_service_order', 'outcomes.possible_ofac_match',
    ]);
  });

  it('accepts raised minimums, a shorter MCS-150 age, escalations and the three waivable reasons', () => {
    const result = validatePolicy({
      insurance: { min_bipd_usd: 1_000_000, cancellation_warning_days: 45 }, authority: { min_age_days: 180 }, mcs150: { max_age_months: 12 },
      safety: { conditional_rating: 'block' }, outcomes: { new_authority: 'pass', mcs150_outdated: 'pass', possible_ofac_match: 'block' },
      overrides: { four_eyes: true, max_days: 30 },
    }, DEFAULT_RULE_SET);
    expect(result.ok).toBe(true);
  });

  it('refuses unknown fields and a review for a Conditional rating the floor blocks', () => {
    expect(validatePolicy({ insurance: { minimum: 1 } }, DEFAULT_RULE_SET).ok).toBe(false);
    const strictFloor = { ...DEFAULT_RULE_SET, safety: { conditional: 'block' as const } };
    const result = validatePolicy({ safety: { conditional_rating: 'review' }, outcomes: { conditional_safety_rating: 'pass' } }, strictFloor);
    expect(result.ok ? [] : result.errors.map((e) => e.path).sort()).toEqual(['outcomes.conditional_safety_rating', 'safety.conditional_rating']);
  });

  it('hashes its content, not its spelling', () => {
    expect(policyHash({ authority: { min_age_days: 1 }, mcs150: { max_age_months: 2 } })).toBe(policyHash({ mcs150: { max_age_months: 2 }, authority: { min_age_days: 1 } }));
  });
});

describe('a decision under a policy', () => {
  it('insurance.min_bipd_usd: a carrier below the raised minimum is a review, one at it is not', () => {
    const policy = { insurance: { min_bipd_usd: 1_000_000 } };
    expect(under(policy, found({ insurance: { bipd_on_file_usd: 999_999, bipd_required_usd: 750_000, cancellation_effective_on: null } })).reasons).toEqual(['insurance_below_minimum']);
    expect(under(null, found({ insurance: { bipd_on_file_usd: 999_999, bipd_required_usd: 750_000, cancellation_effective_on: null } })).reasons).toEqual([]);
    expect(under(policy, found({ insurance: { bipd_on_file_usd: 1_000_000, bipd_required_usd: 750_000, cancellation_effective_on: null } })).reasons).toEqual([]);
  });

  it('identity: windows only lengthened, shared_contact_max only lowered; identity reasons may block, never pass', () => {
    const loose = validatePolicy({
      identity: { contact_change_days: 10, shared_contact_max: 5 }, outcomes: { recent_contact_change: 'pass', shared_contact: 'block' },
    }, DEFAULT_RULE_SET);
    expect(loose.ok ? [] : loose.errors.map((error) => error.path).sort())
      .toEqual(['identity.contact_change_days', 'identity.shared_contact_max', 'outcomes.recent_contact_change']);
    const policy = { identity: { contact_change_days: 60, shared_contact_max: 1 }, outcomes: { recent_contact_change: 'block' as const } };
    expect(validatePolicy(policy, DEFAULT_RULE_SET).ok).toBe(true);
    const changed = (d: number) => found({ identity: { contact: { field: 'email', old: 'a@x.example', new: 'b@x.example', first_seen_on: day(d) } } });
    expect(under(policy, changed(60))).toMatchObject({ reasons: ['recent_contact_change'], tier: 'blocked' });
    expect(under(null, changed(60)).reasons).toEqual([]);
    expect(under(policy, changed(61)).reasons).toEqual([]);
    const shared = found({ identity: { shared: [{ field: 'phone', value: '6025550100', unrelated: 2, dots: ['7', '8'] }] } });
    expect(under(policy, shared).reasons).toEqual(['shared_contact']);
    expect(under(null, shared).reasons).toEqual([]);
  });

  it('authority.min_age_days: 179 days old is new authority under 180, 181 is not', () => {
    const policy = { authority: { min_age_days: 180 } };
    const granted = (d: number) => found({ authority: { status: 'active', granted_on: day(d), revocation_pending_on: null, revoked_on: null } });
    expect(under(policy, granted(179)).reasons).toEqual(['new_authority']);
    expect(under(null, granted(179)).reasons).toEqual([]);
    expect(under(policy, granted(181)).reasons).toEqual([]);
  });

  it('mcs150.max_age_months and insurance.cancellation_warning_days tighten on each side', () => {
    expect(under({ mcs150: { max_age_months: 12 } }, found({ mcs150_date: day(400) })).reasons).toEqual(['mcs150_outdated']);
    expect(under({ mcs150: { max_age_months: 12 } }, found({ mcs150_date: day(300) })).reasons).toEqual([]);
    const cancelIn = (d: number) => found({ insurance: { bipd_on_file_usd: 1_000_000, bipd_required_usd: 750_000, cancellation_effective_on: day(-d) } });
    expect(under({ insurance: { cancellation_warning_days: 60 } }, cancelIn(45)).reasons).toEqual(['insurance_cancellation_pending']);
    expect(under(null, cancelIn(45)).reasons).toEqual([]);
    expect(under({ insurance: { cancellation_warning_days: 60 } }, cancelIn(75)).reasons).toEqual([]);
  });

  it('escalates a review to blocked with the same reason code, and names the policy rule in the evidence', () => {
    const decision = under({ safety: { conditional_rating: 'block' } }, found({ safety_rating: 'C' }));
    expect(decision).toMatchObject({ eligible: false, tier: 'blocked', reasons: ['conditional_safety_rating'], policy_version: 3 });
    expect(decision.evidence.reasons[0]?.rule).toMatchObject({ policy_rule: 'safety.conditional_rating', policy_outcome: 'block', policy_version: 3 });
    expect(under(null, found({ safety_rating: 'C' }))).toMatchObject({ tier: 'conditional', policy_version: null });
  });

  it('waives only what it passes, says so in the evidence, and never touches a hard stop', () => {
    const policy: PolicyDocument = { outcomes: { mcs150_outdated: 'pass' } };
    const waived = under(policy, found({ mcs150_date: day(900) }));
    expect(waived).toMatchObject({ eligible: true, reasons: [], tier: 'preferred' });
    expect(waived.evidence.policy).toMatchObject({ version: 3, waived: ['mcs150_outdated'] });
    const hardStop = under(policy, found({ mcs150_date: day(900), usdot_status: 'I' }));
    expect(hardStop).toMatchObject({ eligible: false, tier: 'blocked', reasons: ['usdot_inactive'] });
  });

  it('leaves not-found and degraded decisions alone', () => {
    const policy: PolicyDocument = { outcomes: { possible_ofac_match: 'block' } };
    expect(under(policy, { kind: 'not_found' })).toMatchObject({ reasons: ['carrier_not_found'], tier: null, policy_version: 3 });
  });
});
