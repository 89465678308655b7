import { describe, expect, it } from 'vitest';
import type { ReasonEvidence } from '../../src/core/evidence.js';
import { REASON_CODES, REASONS, type Reason } from '../../src/core/reasons.js';
import { AppError } from '../../src/errors.js';
import { coverage } from '../../src/overrides/coverage.js';
import {
  DAY_MS, toActive, validateRequest, type CreateOverrideBody, type OverrideRecord, type RequestedCarrier,
} from '../../src/overrides/model.js';

const NOW = Date.parse('2026-03-01T12:00:00.000Z');

const sdnItem = (matched = 'ACME TRADING CO', programs = ['SDGT']): ReasonEvidence => ({
  reason: 'possible_ofac_match', source: 'ofac_sdn', record_id: '1234',
  facts: { matched_name: matched, carrier_name: 'ACME TRUCKING LLC', score: 0.91, exact: false, programs, list_as_of: '2026-02-28' },
  rule: { review_threshold: 0.88, hard_stop_threshold: 0.95 },
});
const bipdItem = (amount: number): ReasonEvidence => ({
  reason: 'insurance_below_minimum', source: 'insurance', record_id: 'MC-100',
  facts: { bipd_on_file_usd: amount, bipd_required_by_fmcsa_usd: 750000, hazmat: false }, rule: { min_bipd_usd: 1000000, required_bipd_usd: 1000000 },
});

function carrier(reasons: Reason[], evidence: ReasonEvidence[], overrides: Partial<RequestedCarrier> = {}): RequestedCarrier {
  return {
    mc: '100', found: true, degraded: false, tier: 'conditional', reasons, decision_id: null,
    carrier: { dot_number: '9', legal_name: 'ACME TRUCKING LLC', dba_name: null }, evidence, ...overrides,
  };
}

const body = (reasons: string[], scope: CreateOverrideBody['scope'] = { until_change: true }, extra: Partial<CreateOverrideBody> = {}): CreateOverrideBody => ({
  mc_number: '100', reasons, scope, reason_code: 'verified_with_insurer', note: null, ...extra,
});

function record(current: RequestedCarrier, request: CreateOverrideBody, id = 'ovr_1'): OverrideRecord {
  const valid = validateRequest(request, current, NOW);
  return {
    id, account: 'acme', kind: valid.kind, status: 'active', mc_number: '100', dot_number: '9', legal_name: 'ACME TRUCKING LLC',
    reasons: valid.reasons, scope: request.scope, reason_code: request.reason_code, note: null, requested_by: 'ann',
    requested_at: new Date(NOW).toISOString(), approved_by: 'bob', approved_at: new Date(NOW).toISOString(),
    expires_at: new Date(valid.expiresAtMs).toISOString(), names_fingerprint: valid.namesFingerprint, bindings: valid.bindings,
    decision_id: null, closed_at: null, closed_by: null, closed_note: null, updated_at: new Date(NOW).toISOString(),
  };
}

function code(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return error instanceof AppError ? error.kind : 'other';
  }
  return undefined;
}

describe('override requests', () => {
  it('refuses every hard stop, degraded reason and carrier_not_found as not_overridable, naming it', () => {
    const never = REASON_CODES.filter((reason) => REASONS[reason].kind !== 'review');
    expect(never.length).toBeGreaterThan(10);
    for (const reason of never) {
      let caught: unknown;
      try {
        validateRequest(body([reason]), carrier([reason], []), NOW);
      } catch (error) {
        caught = error;
      }
      expect(caught, reason).toBeInstanceOf(AppError);
      expect((caught as AppError).kind).toBe('not_overridable');
      expect((caught as AppError).extensions?.reason).toBe(reason);
    }
  });

  it('refuses a review reason while the verdict also carries a hard stop or is degraded', () => {
    expect(code(() => validateRequest(body(['new_authority']), carrier(['out_of_service_order', 'new_authority'], [], { tier: 'blocked' }), NOW))).toBe('not_overridable');
    expect(code(() => validateRequest(body(['new_authority']), carrier(['data_stale'], [], { degraded: true, tier: null }), NOW))).toBe('not_overridable');
    expect(code(() => validateRequest(body(['new_authority']), carrier(['carrier_not_found'], [], { found: false, tier: null }), NOW))).toBe('not_overridable');
    // A conditional rating that the rule set blocks is a hard stop.
    expect(code(() => validateRequest(body(['conditional_safety_rating']), carrier(['conditional_safety_rating'], [], { tier: 'blocked' }), NOW))).toBe('not_overridable');
  });

  it('checks scope durations, reason codes and notes', () => {
    const current = carrier(['new_authority'], []);
    const at = (days: number) => new Date(NOW + days * DAY_MS).toISOString();
    expect(validateRequest(body(['new_authority'], { until: at(365) }), current, NOW).expiresAtMs).toBe(NOW + 365 * DAY_MS);
    expect(code(() => validateRequest(body(['new_authority'], { until: at(365.01) }), current, NOW))).toBe('validation_failed');
    expect(code(() => validateRequest(body(['new_authority'], { until: at(-0.001) }), current, NOW))).toBe('validation_failed');
    expect(validateRequest(body(['new_authority'], { reference: 'LOAD-1' }), current, NOW).expiresAtMs).toBe(NOW + 7 * DAY_MS);
    expect(code(() => validateRequest(body(['new_authority'], { reference: 'L' }, { reason_code: 'other' }), current, NOW))).toBe('validation_failed');
    expect(code(() => validateRequest(body(['new_authority'], { reference: 'L' }, { reason_code: 'other', note: 'called the carrier' }), current, NOW))).toBeUndefined();
    expect(code(() => validateRequest(body(['mcs150_outdated']), current, NOW))).toBe('validation_failed');
  });

  it("holds every scope to the account policy's overrides.max_days, naming the field when an until asks for more", () => {
    const current = carrier(['new_authority'], []);
    const at = (days: number) => new Date(NOW + days * DAY_MS).toISOString();
    expect(validateRequest(body(['new_authority'], { until: at(30) }), current, NOW, 30).expiresAtMs).toBe(NOW + 30 * DAY_MS);
    let refused: unknown;
    try {
      validateRequest(body(['new_authority'], { until: at(30.001) }), current, NOW, 30);
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ kind: 'validation_failed', errors: [{ path: 'scope.until', message: expect.stringContaining('overrides.max_days') }] });
    // until_change and reference scopes are shortened to the policy's limit (a reference never beyond its 7 days).
    expect(validateRequest(body(['new_authority'], { until_change: true }), current, NOW, 30).expiresAtMs).toBe(NOW + 30 * DAY_MS);
    expect(validateRequest(body(['new_authority'], { reference: 'LOAD-1' }), current, NOW, 3).expiresAtMs).toBe(NOW + 3 * DAY_MS);
    expect(validateRequest(body(['new_authority'], { reference: 'LOAD-1' }), current, NOW, 30).expiresAtMs).toBe(NOW + 7 * DAY_MS);
    // Clearances too.
    const sanctioned = carrier(['possible_ofac_match'], [sdnItem()]);
    expect(validateRequest(body(['possible_ofac_match'], { until_change: true }, { reason_code: 'false_positive_name_match' }), sanctioned, NOW, 10).expiresAtMs).toBe(NOW + 10 * DAY_MS);
  });

  it('makes sanctions reasons a clearance bound to the entries, and keeps them apart from other reasons', () => {
    const current = carrier(['possible_ofac_match'], [sdnItem()]);
    const valid = validateRequest(body(['possible_ofac_match'], { until: new Date(NOW + DAY_MS).toISOString() }, { reason_code: 'false_positive_name_match' }), current, NOW);
    expect(valid.kind).toBe('clearance');
    expect(valid.bindings).toMatchObject([{ source: 'ofac_sdn', record_id: '1234', matched_name: 'ACME TRADING CO' }]);
    expect(valid.namesFingerprint).toMatch(/^[0-9a-f]{32}$/);
    const mixed = carrier(['possible_ofac_match', 'new_authority'], [sdnItem()]);
    expect(code(() => validateRequest(body(['possible_ofac_match', 'new_authority']), mixed, NOW))).toBe('validation_failed');
  });
});

describe('coverage', () => {
  const verdict = (reasons: Reason[], evidence: ReasonEvidence[], legal = 'ACME TRUCKING LLC') => ({
    found: true, degraded: false, tier: 'conditional', reasons, carrier: { legal_name: legal, dba_name: null }, evidence: { reasons: evidence },
  });

  it('covers only when every reason is covered', () => {
    const current = carrier(['insurance_below_minimum'], [bipdItem(500000)]);
    const active = toActive(record(current, body(['insurance_below_minimum'])));
    expect(coverage(verdict(['insurance_below_minimum'], [bipdItem(500000)]), [active], null, NOW)).toMatchObject({ covered: true, applied: [active] });
    const two = verdict(['insurance_below_minimum', 'mcs150_outdated'], [bipdItem(500000)]);
    expect(coverage(two, [active], null, NOW)).toMatchObject({ covered: false, applied: [], invalid: [] });
  });

  it('an until_change override stops covering, and is invalid, when the BIPD amount changes', () => {
    const active = toActive(record(carrier(['insurance_below_minimum'], [bipdItem(500000)]), body(['insurance_below_minimum'])));
    const result = coverage(verdict(['insurance_below_minimum'], [bipdItem(600000)]), [active], null, NOW);
    expect(result).toMatchObject({ covered: false, invalid: [active] });
  });

  it('a clearance is invalid when the entry or the carrier name changes, and a new entry is a new review', () => {
    const active = toActive(record(carrier(['possible_ofac_match'], [sdnItem()]), body(['possible_ofac_match'], { until_change: true }, { reason_code: 'false_positive_name_match' })));
    expect(coverage(verdict(['possible_ofac_match'], [sdnItem()]), [active], null, NOW).covered).toBe(true);
    // The list's as-of and the score move every day without the entry changing.
    const sameEntry = { ...sdnItem(), facts: { ...sdnItem().facts, list_as_of: '2026-03-01', score: 0.9 } };
    expect(coverage(verdict(['possible_ofac_match'], [sameEntry]), [active], null, NOW).covered).toBe(true);
    expect(coverage(verdict(['possible_ofac_match'], [sdnItem('ACME TRADING COMPANY')]), [active], null, NOW)).toMatchObject({ covered: false, invalid: [active] });
    expect(coverage(verdict(['possible_ofac_match'], [sdnItem(undefined, ['SDGT', 'IRAN'])]), [active], null, NOW).invalid).toEqual([active]);
    expect(coverage(verdict(['possible_ofac_match'], [sdnItem()], 'ACME HAULING LLC'), [active], null, NOW)).toMatchObject({ covered: false, invalid: [active] });
    expect(coverage(verdict(['possible_ofac_match'], [sdnItem()], 'acme  trucking llc'), [active], null, NOW).covered).toBe(true);
    const other = { ...sdnItem(), record_id: '999' };
    expect(coverage(verdict(['possible_ofac_match'], [sdnItem(), other]), [active], null, NOW)).toMatchObject({ covered: false, invalid: [] });
  });

  it('expires to the millisecond, and a reference scope covers only its reference', () => {
    const current = carrier(['new_authority'], []);
    const until = toActive(record(current, body(['new_authority'], { until: new Date(NOW + 60_000).toISOString() })));
    expect(coverage(verdict(['new_authority'], []), [until], null, NOW + 59_999).covered).toBe(true);
    expect(coverage(verdict(['new_authority'], []), [until], null, NOW + 60_000).covered).toBe(false);
    const ref = toActive(record(current, body(['new_authority'], { reference: 'LOAD-123' })));
    expect(coverage(verdict(['new_authority'], []), [ref], 'LOAD-123', NOW).covered).toBe(true);
    expect(coverage(verdict(['new_authority'], []), [ref], 'LOAD-124', NOW).covered).toBe(false);
    expect(coverage(verdict(['new_authority'], []), [ref], null, NOW).covered).toBe(false);
  });

  it('never lifts a blocked or degraded verdict', () => {
    const active = toActive(record(carrier(['new_authority'], []), body(['new_authority'], { reference: 'X' })));
    expect(coverage({ ...verdict(['new_authority'], []), tier: 'blocked' }, [active], 'X', NOW).covered).toBe(false);
    expect(coverage({ ...verdict(['new_authority'], []), degraded: true }, [active], 'X', NOW).covered).toBe(false);
  });
});
