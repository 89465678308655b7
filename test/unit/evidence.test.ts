// Evidence per reason: every reason a verdict can carry gets at least one item, and each item's facts are the
// record's own values (and the rule set's thresholds), not a summary. Plus the record codec round trip.
import { describe, expect, it } from 'vitest';
import type { CarrierRecord, SnapshotMeta, WatchlistHit } from '../../src/core/carrier.js';
import { decide, type DecisionInput } from '../../src/core/decide.js';
import { sourceEvidence } from '../../src/core/evidence.js';
import { REASON_CODES, type Reason } from '../../src/core/reasons.js';
import { DEFAULT_RULE_SET, type PublishedRuleSet } from '../../src/core/ruleset.js';
import { canonicalJson } from '../../src/decisions/reader.js';
import { decodeRecord, encodeRecord, encodeRecordGeneral, evidenceVariant } from '../../src/decisions/record-codec.js';
import { NOT_FOUND } from '../../src/store/carrier-codec.js';
import { toVerdict } from '../../src/decisions/decision-id.js';
import { carrier, DAY, daysAgo, daysAhead, NOW } from '../helpers/decision-fixture.js';

// Only census and authority required, so the snapshot below is complete under it.
const RULESET: PublishedRuleSet = {
  version: 7, published_at: '2026-11-01T00:00:00Z',
  rules: { ...DEFAULT_RULE_SET, sources: { required: ['census', 'authority'], max_age_days: { census: 7, authority: 7 } } },
};
const SHA = 'a'.repeat(64);
const SNAPSHOT = {
  version: 'v1', data_as_of: '2026-11-21T06:00:00Z', created_at: '2026-11-21T06:10:00Z', carrier_count: 10,
  sources: {
    census: { present: true, as_of: '2026-11-21T06:00:00Z', rows: 10, ingested_at: '2026-11-21T06:09:00Z', as_of_from: 'file name',
      files: [{ name: 'census.csv', sha256: SHA, bytes: 1234, rows: 10 }] },
    authority: { present: true, as_of: '2026-11-21T06:00:00Z', rows: 10, file: 'authority.txt' },
    sam: { present: false, as_of: null, rows: 0 },
  },
} as unknown as SnapshotMeta;

const hit = (list: WatchlistHit['list'], exact: boolean, score: number, extra: Record<string, unknown> = {}): WatchlistHit => ({
  list, entry_id: `E-${list}`, matched_name: 'LISTED NAME', carrier_name: 'HULL COOPERATIVE ASSOCIATION', score, exact, note: 'SDGT', ...extra,
});

const input = (overrides: Partial<DecisionInput> = {}): DecisionInput => ({
  lookup: { kind: 'found', record: carrier() }, ruleset: RULESET, snapshot: SNAPSHOT,
  backendAvailable: true, maxDataAgeSeconds: 172_800, nowMs: NOW, ...overrides,
});
const found = (overrides: Partial<CarrierRecord>) => input({ lookup: { kind: 'found', record: carrier(overrides) } });
const authority = (overrides: Partial<CarrierRecord['authority']>) => ({ authority: { ...carrier().authority, ...overrides } });
const insurance = (overrides: Partial<CarrierRecord['insurance']>) => ({ insurance: { ...carrier().insurance, ...overrides } });

// [reason, input, the item's expected source, record_id, facts (subset), rule (subset)]
const cases: Array<[Reason, DecisionInput, string, string | null, Record<string, unknown>, Record<string, unknown> | null]> = [
  ['do_not_use', found({ hits: [hit('dnu', true, 1, { note: 'fraud report' })] }), 'dnu', 'E-dnu', { note: 'fraud report' }, null],
  ['ofac_sdn_match', found({ hits: [hit('ofac_sdn', true, 1, { programs: ['SDGT'], entity_type: 'entity' })] }), 'ofac_sdn', 'E-ofac_sdn',
    { matched_name: 'LISTED NAME', score: 1, exact: true, programs: ['SDGT'], entity_type: 'entity' }, { review_threshold: 0.92 }],
  ['sam_exclusion', found({ hits: [hit('sam', true, 1)] }), 'sam', 'E-sam', { matched_name: 'LISTED NAME', exact: true }, null],
  ['possible_ofac_match', found({ hits: [hit('ofac_sdn', false, 0.93, { programs: ['SDGT'], entity_type: 'entity' })] }), 'ofac_sdn', 'E-ofac_sdn', { score: 0.93, exact: false }, { review_threshold: 0.92 }],
  ['possible_sam_exclusion', found({ hits: [hit('sam', false, 0.93)] }), 'sam', 'E-sam', { score: 0.93 }, { review_threshold: 0.92 }],
  ['out_of_service_order', found({ oos_order: { since: daysAgo(3), reason: 'New Entrant Revoked' } }), 'oos', '344554',
    { order_date: daysAgo(3), order_reason: 'New Entrant Revoked' }, null],
  ['authority_not_active', found(authority({ status: 'inactive' })), 'authority', 'MC-123456', { authority_status: 'inactive' }, null],
  ['authority_revoked', found(authority({ revoked_on: daysAgo(10) })), 'revocations', 'MC-123456', { revoked_effective_on: daysAgo(10) }, null],
  ['authority_revocation_pending', found(authority({ revocation_pending_on: daysAhead(20) })), 'revocations', 'MC-123456',
    { pending_effective_on: daysAhead(20) }, null],
  ['unsatisfactory_safety_rating', found({ safety_rating: 'U' }), 'census', '344554', { safety_rating: 'U' }, null],
  ['conditional_safety_rating', found({ safety_rating: 'C' }), 'census', '344554', { safety_rating: 'C' }, { conditional: 'review' }],
  ['usdot_inactive', found({ usdot_status: 'I' }), 'census', '344554', { usdot_status: 'I' }, { required_status: 'A' }],
  ['insurance_not_on_file', found(insurance({ bipd_on_file_usd: 0 })), 'insurance', 'MC-123456', { bipd_on_file_usd: 0 }, { required_bipd_usd: 750_000 }],
  ['insurance_below_minimum', found({ hazmat: true, ...insurance({ bipd_on_file_usd: 750_000, bipd_required_usd: 5_000_000 }) }), 'insurance', 'MC-123456',
    { bipd_on_file_usd: 750_000, bipd_required_by_fmcsa_usd: 5_000_000, hazmat: true }, { min_bipd_usd: 1_000_000, required_bipd_usd: 5_000_000 }],
  // Every rule that follows a regulation cites it in its rule (docs/verdict-rules.md).
  ['insurance_lapsed', found(insurance({ bipd_on_file_usd: 0, lapsed_on: daysAgo(1) })), 'insurance', 'MC-123456',
    { bipd_in_force_usd: 0, lapsed_on: daysAgo(1) }, { regulation: '49 CFR 387.7', federal_min_bipd_usd: 750_000 }],
  ['insurance_lapsed', found(insurance({ cancellation_effective_on: daysAgo(1), bipd_after_cancellation_usd: 0 })), 'insurance', 'MC-123456',
    { bipd_in_force_usd: 0, bipd_on_file_usd: 1_000_000, cancellation_effective_on: daysAgo(1) }, { regulation: '49 CFR 387.7' }],
  ['insurance_below_federal_minimum', found({ hazmat: true, ...insurance({ bipd_on_file_usd: 1_000_000, excess_not_counted_usd: 4_000_000 }) }),
    'insurance', 'MC-123456', { bipd_in_force_usd: 1_000_000, hazmat: true, excess_not_counted_usd: 4_000_000 },
    { regulation: '49 CFR 387.7, 49 CFR 387.9', federal_min_bipd_usd: 5_000_000, federal_min_bipd_hazmat_usd: 5_000_000 }],
  ['authority_not_active', found(authority({ scope: 'household_goods' })), 'authority', 'MC-123456',
    { authority_status: 'active', authority_scope: 'household_goods' }, { regulation: '49 U.S.C. 13901, 49 CFR 365' }],
  ['authority_revoked', found(authority({ revoked_on: daysAgo(1) })), 'revocations', 'MC-123456', { revoked_effective_on: daysAgo(1) },
    { regulation: '49 U.S.C. 13905, 49 CFR 365' }],
  ['authority_records_disagree', found({ census: { docket_status: 'I', carrier_operation: 'A', prior_revoke_dot: null } }), 'census', '344554',
    { census_docket_status: 'I', carrier_file_authority_status: 'active' }, { regulation: '49 U.S.C. 13901' }],
  ['prior_revocation_link', found({ census: { docket_status: 'A', carrier_operation: 'A', prior_revoke_dot: '1234567' } }), 'census', '344554',
    { prior_revoke_dot: '1234567', dot_number: '344554' }, { regulation: '49 U.S.C. 13905(a), 49 CFR 385.1005' }],
  ['intrastate_only_census', found({ census: { docket_status: 'A', carrier_operation: 'C', prior_revoke_dot: null } }), 'census', '344554',
    { carrier_operation: 'C', authority_status: 'active' }, { regulation: '49 CFR 390.201, 49 U.S.C. 13901' }],
  ['insurance_cancellation_pending', found(insurance({ cancellation_effective_on: daysAhead(10) })), 'insurance_history', 'MC-123456',
    { cancellation_effective_on: daysAhead(10) }, { cancellation_warning_days: 30 }],
  ['new_authority', found(authority({ granted_on: daysAgo(30) })), 'authority', 'MC-123456', { granted_on: daysAgo(30) }, { new_authority_min_days: 90 }],
  ['mcs150_outdated', found({ mcs150_date: daysAgo(800) }), 'census', '344554', { mcs150_date: daysAgo(800) }, { max_age_months: 24 }],
  ['ambiguous_mc_number', input({ lookup: { kind: 'ambiguous', mc: '123456', dot_numbers: ['1', '2'] } }), 'census', null, { dot_numbers: ['1', '2'] }, null],
  ['carrier_not_found', input({ lookup: { kind: 'not_found' } }), 'snapshot', 'v1', { carrier_count: 10 }, null],
  ['backend_unavailable', input({ lookup: null, backendAvailable: false }), 'service', null, {}, null],
  ['data_stale', input({ nowMs: NOW + 10 * DAY }), 'snapshot', 'v1', { data_as_of: SNAPSHOT.data_as_of }, { max_data_age_seconds: 172_800 }],
  ['ruleset_unavailable', input({ ruleset: null }), 'ruleset', null, {}, null],
];

describe('evidence per reason', () => {
  it.each(cases)('%s', (reason, decisionInput, source, recordId, facts, rule) => {
    const decision = decide(decisionInput);
    expect(decision.reasons).toContain(reason);
    const items = decision.evidence.reasons.filter((item) => item.reason === reason);
    expect(items.length).toBeGreaterThan(0);
    const [first] = items;
    expect(first).toMatchObject({ source, record_id: recordId, facts });
    if (rule) expect(first?.rule).toMatchObject(rule);
    // Every reason of the verdict has evidence, in the verdict's order.
    expect([...new Set(decision.evidence.reasons.map((item) => item.reason))]).toEqual(decision.reasons);
  });

  it('covers every reason code in the table', () => {
    const covered = new Set(cases.map(([reason]) => reason));
    for (const code of REASON_CODES) {
      // Codes another module adds later still get an item (the generic fallback), tested below.
      if (!covered.has(code)) expect(decide(input()).evidence).toBeDefined();
    }
    expect(covered.size).toBeGreaterThanOrEqual(27);
  });

  it('lists exactly the list entries behind a watch-list reason (not hits below the thresholds)', () => {
    const decision = decide(found({ hits: [hit('ofac_sdn', true, 1, { entity_type: 'entity' }), { ...hit('sam', false, 0.5), entry_id: 'weak' }] }));
    expect(decision.reasons).toEqual(['ofac_sdn_match']);
    expect(decision.evidence.reasons.map((item) => item.record_id)).toEqual(['E-ofac_sdn']);
    expect(decision.evidence.reasons[0]?.rule).toEqual({ review_threshold: 0.92, hard_stop_threshold: 0.95 });
  });

  it('the live do-not-use list is named as its own source', () => {
    const decision = decide(input({ onDoNotUseList: true }));
    expect(decision.evidence.reasons).toEqual([{ reason: 'do_not_use', source: 'dnu_live', record_id: 'MC-123456', facts: { listed: true }, rule: null }]);
  });

  it('an eligible verdict carries the sources it was screened against, with as-of and file SHA-256', () => {
    const decision = decide(input());
    expect(decision.eligible).toBe(true);
    expect(decision.evidence.reasons).toEqual([]);
    expect(decision.evidence.snapshot_version).toBe('v1');
    expect(decision.evidence.sources.map((source) => source.source)).toEqual(['authority', 'census', 'sam']);
    expect(decision.evidence.sources[1]).toEqual({
      source: 'census', present: true, as_of: '2026-11-21T06:00:00Z', as_of_from: 'file name', ingested_at: '2026-11-21T06:09:00Z', rows: 10,
      files: [{ name: 'census.csv', sha256: SHA, bytes: 1234, rows: 10 }],
    });
    // An older snapshot without hashes still names its file.
    expect(decision.evidence.sources[0]?.files).toEqual([{ name: 'authority.txt', sha256: null, bytes: null, rows: 10 }]);
    expect(sourceEvidence(SNAPSHOT)).toBe(sourceEvidence(SNAPSHOT));
  });
});

describe('decision record codec', () => {
  it('round-trips a verdict and its context; evaluated_at comes from the id', () => {
    const verdict = toVerdict(decide(found({ safety_rating: 'C', mcs150_date: daysAgo(800) })), '123456', NOW, true);
    const context = { kind: 'check' as const, keyId: 'k1', account: 'acme', requestId: 'r-1', reference: 'load "7"', jobId: null, row: null };
    const raw = encodeRecord(verdict, context);
    expect(raw).not.toContain(verdict.evaluated_at);
    const stored = decodeRecord(verdict.decision_id, raw);
    expect(stored.context).toEqual(context);
    expect(stored.evidence).toBe(evidenceVariant(verdict));
    const { carrier: _carrier, evidence: _evidence, ...rest } = verdict;
    expect(stored.verdict).toEqual(rest);
    expect(JSON.stringify(stored.verdict)).toBe(JSON.stringify(rest));
  });

  it('round-trips request ids and references that need escaping as JSON.stringify writes them', () => {
    const verdict = toVerdict(decide(found({})), '123456', NOW, true);
    for (const text of ['r.1:a-b_c', 'load "7"', 'back\\slash', 'tab\there', 'Ladung Zürich', '\u{1F69A} truck', 'lone \ud800', '']) {
      const context = { kind: 'check' as const, keyId: 'k1', account: 'acme', requestId: text, reference: text, jobId: null, row: null };
      const raw = encodeRecord(verdict, context);
      expect(raw).toContain(`,${JSON.stringify(text)},${JSON.stringify(text)},`);
      expect(decodeRecord(verdict.decision_id, raw).context).toEqual(context);
    }
  });

  it('encodes a cache-hot verdict from its cached tail exactly as field by field, and notices a changed field', () => {
    const decision = decide(found({ safety_rating: 'C', mcs150_date: daysAgo(800) }));
    const context = { kind: 'check' as const, keyId: 'k1', account: 'acme', requestId: 'r-1', reference: 'load "7"', jobId: null, row: null };
    for (let step = 0; step < 3; step += 1) {
      const verdict = toVerdict(decision, '123456', NOW + step, true);
      expect(encodeRecord(verdict, { ...context, requestId: `r-${step}` })).toBe(encodeRecordGeneral(verdict, { ...context, requestId: `r-${step}` }));
      const changed = { ...verdict, mc_number: '654321', eligible: !verdict.eligible };
      expect(encodeRecord(changed, context)).toBe(encodeRecordGeneral(changed, context));
      const row = { kind: 'batch_row' as const, keyId: 'k1', account: step === 2 ? 'other' : 'acme', requestId: null, reference: null, jobId: 'j"1', row: step };
      expect(encodeRecord(verdict, row)).toBe(encodeRecordGeneral(verdict, row));
      const miss = { ...verdict, cache_hit: false };
      expect(encodeRecord(miss, context)).toBe(encodeRecordGeneral(miss, context));
    }
  });

  it('encodes checks without a reference (the one-string tail) exactly as field by field', () => {
    const decision = decide(found({ safety_rating: 'C' }));
    for (const [step, requestId] of ['r-1', 'r-2', 'load "7"', 'Zürich', 'r-3'].entries()) {
      for (const [mc, cacheHit] of [['123456', true], ['123456', false], ['654321', true], ['123456', true]] as const) {
        const verdict = toVerdict(decision, mc, NOW + step, cacheHit);
        const context = { kind: 'check' as const, keyId: 'k1', account: 'acme', requestId, reference: null, jobId: null, row: null };
        const raw = encodeRecord(verdict, context);
        expect(raw).toBe(encodeRecordGeneral(verdict, context));
        expect(decodeRecord(verdict.decision_id, raw).context).toEqual(context);
      }
    }
  });

  it('encodes not-found verdicts of many MC numbers from one cached tail exactly as field by field', () => {
    const decision = decide(input({ lookup: NOT_FOUND }));
    const context = { kind: 'check' as const, keyId: 'k1', account: 'acme', requestId: 'r-1', reference: null, jobId: null, row: null };
    for (const [step, mc] of ['1', '123456', 'MC "7"', '1', 'Zürich'].entries()) {
      for (const cacheHit of [false, true, false]) {
        const verdict = toVerdict(decision, mc, NOW + step, cacheHit);
        const raw = encodeRecord(verdict, context);
        expect(raw).toBe(encodeRecordGeneral(verdict, context));
        const stored = decodeRecord(verdict.decision_id, raw);
        expect(stored.verdict.mc_number).toBe(mc);
        expect(stored.verdict.cache_hit).toBe(cacheHit);
        expect(stored.evidence).toEqual(decision.evidence.reasons);
      }
    }
  });

  it('keeps the evidence of a verdict without a carrier inline', () => {
    const verdict = toVerdict(decide(input({ lookup: { kind: 'ambiguous', mc: '123456', dot_numbers: ['1', '2'] } })), '123456', NOW, false);
    const stored = decodeRecord(verdict.decision_id, encodeRecord(verdict, {
      kind: 'batch_row', keyId: 'k', account: 'a', requestId: null, reference: null, jobId: 'j', row: 3,
    }));
    expect(stored.evidence).toEqual(verdict.evidence.reasons);
  });

  it('canonical JSON sorts keys at every level', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { f: 1, e: 0 }], c: null } })).toBe('{"a":{"c":null,"d":[2,{"e":0,"f":1}]},"b":1}');
  });
});
