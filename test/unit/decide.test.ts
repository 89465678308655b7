import { describe, expect, it } from 'vitest';
import type { CarrierRecord, SnapshotMeta, WatchlistHit } from '../../src/core/carrier.js';
import { decide, type DecisionInput } from '../../src/core/decide.js';
import { REASON_CODES, REASONS, reasonsOfKind, type Reason } from '../../src/core/reasons.js';
import { DEFAULT_RULE_SET, type PublishedRuleSet } from '../../src/core/ruleset.js';
import { carrier, daysAgo, daysAhead, NOW } from '../helpers/decision-fixture.js';


const RULESET: PublishedRuleSet = { version: 7, published_at: '2026-11-01T00:00:00Z', rules: DEFAULT_RULE_SET };
const SNAPSHOT: SnapshotMeta = {
  version: 'v1', data_as_of: '2026-11-21T06:00:00Z', created_at: '2026-11-21T06:10:00Z', carrier_count: 10,
  sources: {
    census: { present: true, as_of: '2026-11-21T06:00:00Z', rows: 10 },
    authority: { present: true, as_of: '2026-11-21T06:00:00Z', rows: 10 },
    insurance: { present: true, as_of: '2026-11-21T06:00:00Z', rows: 10 },
    oos: { present: true, as_of: '2026-11-21T06:00:00Z', rows: 1 },
    ofac_sdn: { present: true, as_of: '2026-11-21T06:00:00Z', rows: 1 },
    sam: { present: true, as_of: '2026-11-21T06:00:00Z', rows: 1 },
  },
};

const hit = (list: WatchlistHit['list'], exact: boolean, score: number): WatchlistHit => ({
  list, entry_id: '1', matched_name: 'X', carrier_name: 'X', score, exact,
});

function input(overrides: Partial<DecisionInput> = {}): DecisionInput {
  return {
    lookup: { kind: 'found', record: carrier() }, ruleset: RULESET, snapshot: SNAPSHOT,
    backendAvailable: true, maxDataAgeSeconds: 172_800, nowMs: NOW, ...overrides,
  };
}

const found = (overrides: Partial<CarrierRecord>) => input({ lookup: { kind: 'found', record: carrier(overrides) } });
const authority = (overrides: Partial<CarrierRecord['authority']>) => ({ authority: { ...carrier().authority, ...overrides } });
const insurance = (overrides: Partial<CarrierRecord['insurance']>) => ({ insurance: { ...carrier().insurance, ...overrides } });

const change = (field: string, days: number) => ({ field, old: 'before', new: 'after', first_seen_on: daysAgo(days) });

describe('decide: one row per reason', () => {
  const cases: Array<[Reason, DecisionInput, 'blocked' | 'conditional' | null]> = [
    ['do_not_use', found({ hits: [hit('dnu', true, 1)] }), 'blocked'],
    ['ofac_sdn_match', found({ hits: [hit('ofac_sdn', true, 1)] }), 'blocked'],
    // Consolidated (non-SDN) programs restrict, they do not block: their own review reason (issue 8).
    ['ofac_consolidated_match', found({ hits: [hit('ofac_cons', true, 1)] }), 'conditional'],
    ['sam_exclusion', found({ hits: [hit('sam', true, 1)] }), 'blocked'],
    ['out_of_service_order', found({ oos_order: { since: daysAgo(3), reason: 'New Entrant Revoked - Refusal of Audit/No Contact' } }), 'blocked'],
    ['authority_not_active', found(authority({ status: 'inactive' })), 'blocked'],
    ['authority_not_active', found(authority({ status: 'pending' })), 'blocked'],
    ['authority_not_active', found(authority({ status: 'none' })), 'blocked'],
    ['authority_not_active', found(authority({ status: 'unknown' })), 'blocked'],
    ['authority_revoked', found(authority({ revoked_on: daysAgo(10) })), 'blocked'],
    ['authority_revoked', found(authority({ revocation_pending_on: daysAgo(1) })), 'blocked'],
    ['unsatisfactory_safety_rating', found({ safety_rating: 'U' }), 'blocked'],
    ['usdot_inactive', found({ usdot_status: 'I' }), 'blocked'],
    ['usdot_inactive', found({ usdot_status: null }), 'blocked'],
    ['carrier_record_unreadable', found({ unreadable: ['census.LEGAL_NAME'] }), 'blocked'],
    ['possible_ofac_match', found({ hits: [hit('ofac_sdn', false, 0.95)] }), 'conditional'],
    ['possible_sam_exclusion', found({ hits: [hit('sam', false, 0.93)] }), 'conditional'],
    ['conditional_safety_rating', found({ safety_rating: 'C' }), 'conditional'],
    // A zero is known: nothing in force, a hard stop (49 CFR 387.7); no figure at all is a review.
    ['insurance_not_on_file', found(insurance({ bipd_on_file_usd: 0 })), 'blocked'],
    ['insurance_not_on_file', found(insurance({ bipd_on_file_usd: null })), 'conditional'],
    ['insurance_lapsed', found(insurance({ bipd_on_file_usd: 0 })), 'blocked'],
    // A cancellation that took effect since the ingest removes its policies: what is left is the tower without them.
    ['insurance_lapsed', found(insurance({ cancellation_effective_on: daysAgo(1) })), 'blocked'],
    ['insurance_lapsed', found(insurance({ cancellation_effective_on: daysAgo(0), bipd_after_cancellation_usd: 0 })), 'blocked'],
    ['insurance_below_federal_minimum', found(insurance({ bipd_on_file_usd: 500_000 })), 'blocked'],
    ['insurance_below_federal_minimum', found({ hazmat: true, ...insurance({ bipd_on_file_usd: 1_000_000 }) }), 'blocked'],
    ['insurance_below_federal_minimum', found(insurance({ bipd_on_file_usd: 1_000_000, bipd_required_usd: 5_000_000 })), 'blocked'],
    ['insurance_below_federal_minimum', found(insurance({ cancellation_effective_on: daysAgo(2), bipd_after_cancellation_usd: 500_000 })), 'blocked'],
    // The broker's minimum above the federal one stays a review: FMCSA requires $300k of this small-vehicle carrier.
    ['insurance_below_minimum', found(insurance({ bipd_on_file_usd: 500_000, bipd_required_usd: 300_000 })), 'conditional'],
    ['insurance_below_minimum', found({ hazmat: true, ...insurance({ bipd_on_file_usd: 5_000_000, bipd_required_usd: 6_000_000 }) }), 'blocked'],
    ['authority_not_active', found(authority({ scope: 'passenger' })), 'blocked'],
    ['authority_not_active', found(authority({ scope: 'household_goods' })), 'blocked'],
    ['authority_records_disagree', found({ census: { docket_status: 'I', carrier_operation: 'A', prior_revoke_dot: null } }), 'conditional'],
    ['authority_records_disagree', found({ census: { docket_status: 'A', carrier_operation: 'A', prior_revoke_dot: null }, ...authority({ status: 'inactive' }) }), 'blocked'],
    ['prior_revocation_link', found({ census: { docket_status: 'A', carrier_operation: 'A', prior_revoke_dot: '1234567' } }), 'conditional'],
    ['prior_revocation_link', found({ census: { docket_status: 'A', carrier_operation: 'A', prior_revoke_dot: '' } }), 'conditional'],
    ['intrastate_only_census', found({ census: { docket_status: 'A', carrier_operation: 'C', prior_revoke_dot: null } }), 'conditional'],
    ['intrastate_only_census', found({ census: { docket_status: 'A', carrier_operation: 'B', prior_revoke_dot: null } }), 'conditional'],
    ['insurance_cancellation_pending', found(insurance({ cancellation_effective_on: daysAhead(12) })), 'conditional'],
    ['new_authority', found(authority({ granted_on: daysAgo(30) })), 'conditional'],
    ['authority_revocation_pending', found(authority({ revocation_pending_on: daysAhead(20) })), 'conditional'],
    ['mcs150_outdated', found({ mcs150_date: daysAgo(800) }), 'conditional'],
    ['mcs150_outdated', found({ mcs150_date: null }), 'conditional'],
    ['recent_contact_change', found({ identity: { contact: change('phone', 3) } }), 'conditional'],
    ['recent_address_change', found({ identity: { address: change('physical_address', 3) } }), 'conditional'],
    ['recent_name_change', found({ identity: { name: change('legal_name', 3) } }), 'conditional'],
    ['shared_contact', found({ identity: { shared: [{ field: 'phone', value: '6025550100', unrelated: 4, dots: ['1', '2', '3', '4'] }] } }), 'conditional'],
    ['authority_reactivated', found({ identity: { reactivated: { on: daysAgo(5), after: 'revocation', since: daysAgo(400) } } }), 'conditional'],
    ['ambiguous_mc_number', input({ lookup: { kind: 'ambiguous', mc: '123456', dot_numbers: ['1', '2'] } }), 'conditional'],
    ['carrier_not_found', input({ lookup: { kind: 'not_found' } }), null],
    ['backend_unavailable', input({ backendAvailable: false, lookup: null }), null],
    ['ruleset_unavailable', input({ ruleset: null }), null],
    ['data_stale', input({ snapshot: null }), null],
    ['data_stale', input({ snapshot: { ...SNAPSHOT, data_as_of: '2026-11-10T00:00:00Z' } }), null],
    ['data_stale', input({ snapshot: { ...SNAPSHOT, sources: { census: SNAPSHOT.sources.census } } }), null],
    ['data_stale', input({
      snapshot: { ...SNAPSHOT, sources: { ...SNAPSHOT.sources, sam: { present: true, as_of: '2026-10-01T00:00:00Z', rows: 3 } } },
    }), null],
  ];

  it.each(cases)('%s', (reason, decisionInput, tier) => {
    const decision = decide(decisionInput);
    expect(decision.reasons).toContain(reason);
    expect(decision.tier).toBe(tier);
    expect(decision.eligible).toBe(false);
    expect(decision.degraded).toBe(REASONS[reason].kind === 'degraded');
    expect(decision.found).toBe(REASONS[reason].kind === 'hard_stop' || REASONS[reason].kind === 'review');
    if (decision.degraded) expect(decision.tier).toBeNull();
  });

  it('covers every reason code in the table', () => {
    expect(new Set(cases.map(([reason]) => reason))).toEqual(new Set(REASON_CODES));
  });
});

describe('decide: eligible tiers', () => {
  it('is preferred with an S rating and at least $1M BIPD', () => {
    const decision = decide(input());
    expect(decision).toMatchObject({ eligible: true, found: true, tier: 'preferred', reasons: [], degraded: false, ruleset_version: 7 });
    expect(decision.carrier).toEqual({ dot_number: '344554', legal_name: 'HULL COOPERATIVE ASSOCIATION', dba_name: null });
    expect(decision.data_as_of).toBe(SNAPSHOT.data_as_of);
  });

  it('is standard when unrated', () => {
    expect(decide(found({ safety_rating: null }))).toMatchObject({ eligible: true, tier: 'standard', reasons: [] });
  });

  it('is standard with exactly the minimum BIPD', () => {
    expect(decide(found(insurance({ bipd_on_file_usd: 750_000 })))).toMatchObject({ eligible: true, tier: 'standard' });
  });

  it('ignores a weak name similarity below the rule set threshold', () => {
    expect(decide(found({ hits: [hit('ofac_sdn', false, 0.86)] }))).toMatchObject({ eligible: true });
  });

  it('ignores a cancellation beyond the warning horizon, and one that took effect with enough left in force', () => {
    expect(decide(found(insurance({ cancellation_effective_on: daysAhead(90) })))).toMatchObject({ eligible: true });
    expect(decide(found(insurance({ cancellation_effective_on: daysAgo(5), bipd_after_cancellation_usd: 1_000_000 }))))
      .toMatchObject({ eligible: true, tier: 'preferred' });
  });

  it('counts a cancellation from its effective day: the day before it is pending, on the day it has taken effect', () => {
    expect(decide(found(insurance({ cancellation_effective_on: daysAhead(1) }))).reasons).toEqual(['insurance_cancellation_pending']);
    expect(decide(found(insurance({ cancellation_effective_on: daysAgo(0) }))).reasons).toEqual(['insurance_lapsed', 'insurance_not_on_file']);
  });

  it('reports the federal hard stop and the broker review together when both apply', () => {
    expect(decide(found(insurance({ bipd_on_file_usd: 500_000 })))).toMatchObject({
      tier: 'blocked', reasons: ['insurance_below_federal_minimum', 'insurance_below_minimum'],
    });
  });

  it('reads the hazmat amount of 387.9 from the rule set, never below $1M', () => {
    const oilOnly: PublishedRuleSet = { ...RULESET, rules: { ...DEFAULT_RULE_SET, insurance: { ...DEFAULT_RULE_SET.insurance, federal_min_bipd_hazmat_usd: 1_000_000 } } };
    expect(decide({ ...found({ hazmat: true, ...insurance({ bipd_on_file_usd: 1_000_000 }) }), ruleset: oilOnly })).toMatchObject({ eligible: true });
    expect(decide({ ...found({ hazmat: true, ...insurance({ bipd_on_file_usd: 750_000 }) }), ruleset: oilOnly }).reasons)
      .toEqual(['insurance_below_federal_minimum', 'insurance_below_minimum']);
  });

  it('takes no census fact as a sign by itself: own DOT as the prior one, interstate, agreeing statuses', () => {
    expect(decide(found({ census: { docket_status: 'A', carrier_operation: 'A', prior_revoke_dot: '344554' } }))).toMatchObject({ eligible: true });
    expect(decide(found({ census: { docket_status: null, carrier_operation: null, prior_revoke_dot: null } }))).toMatchObject({ eligible: true });
  });

  it('blocks a Conditional rating when the rule set says block', () => {
    const strict: PublishedRuleSet = { ...RULESET, rules: { ...DEFAULT_RULE_SET, safety: { conditional: 'block' } } };
    expect(decide({ ...found({ safety_rating: 'C' }), ruleset: strict })).toMatchObject({ tier: 'blocked', eligible: false });
  });
});

describe('decide: live do-not-use list', () => {
  it('blocks a clean carrier at once, ahead of other reasons', () => {
    expect(decide({ ...input(), onDoNotUseList: true })).toMatchObject({ eligible: false, tier: 'blocked', reasons: ['do_not_use'] });
    expect(decide({ ...found({ safety_rating: 'C' }), onDoNotUseList: true }).reasons).toEqual(['do_not_use', 'conditional_safety_rating']);
  });

  it('blocks an ambiguous MC number and does not duplicate a snapshot DNU hit', () => {
    expect(decide({ ...input({ lookup: { kind: 'ambiguous', mc: '1', dot_numbers: ['1', '2'] } }), onDoNotUseList: true }))
      .toMatchObject({ tier: 'blocked', reasons: ['do_not_use', 'ambiguous_mc_number'] });
    expect(decide({ ...found({ hits: [hit('dnu', true, 1)] }), onDoNotUseList: true }).reasons).toEqual(['do_not_use']);
  });

  it('does not turn an unknown carrier or a degraded verdict into anything else', () => {
    expect(decide({ ...input({ lookup: { kind: 'not_found' } }), onDoNotUseList: true }).reasons).toEqual(['carrier_not_found']);
    expect(decide({ ...input({ backendAvailable: false, lookup: null }), onDoNotUseList: true }).reasons).toEqual(['backend_unavailable']);
  });
});

describe('decide: ordering and degradation', () => {
  it('lists hard stops before review reasons', () => {
    const decision = decide(found({ safety_rating: 'C', hits: [hit('dnu', true, 1)], usdot_status: 'I' }));
    expect(decision.reasons).toEqual(['do_not_use', 'usdot_inactive', 'conditional_safety_rating']);
    expect(decision.tier).toBe('blocked');
  });

  it('reports every degraded reason at once and withholds the carrier', () => {
    const decision = decide(input({ backendAvailable: false, ruleset: null, snapshot: null, lookup: null }));
    expect(decision).toMatchObject({
      eligible: false, found: false, tier: null, degraded: true, carrier: null, ruleset_version: null, data_as_of: null,
      reasons: ['backend_unavailable', 'data_stale', 'ruleset_unavailable'],
    });
  });

  it('is degraded, not eligible, for a clean carrier on stale data', () => {
    const stale = { ...SNAPSHOT, data_as_of: new Date(NOW - 172_801_000).toISOString() };
    expect(decide({ ...input(), snapshot: stale })).toMatchObject({ eligible: false, degraded: true, reasons: ['data_stale'] });
  });
});

describe('decide: property — eligible never travels with a reason, degradation or absence', () => {
  // A small deterministic generator (no dependency): every field takes a value from a pool of good and bad ones.
  function* generated(count: number): Generator<DecisionInput> {
    let seed = 42;
    const pick = <T>(pool: readonly T[]): T => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return pool[seed % pool.length] as T;
    };
    for (let i = 0; i < count; i++) {
      const record = carrier({
        usdot_status: pick(['A', 'A', 'I', null]),
        safety_rating: pick(['S', null, 'C', 'U']),
        hazmat: pick([false, true]),
        mcs150_date: pick([daysAgo(10), daysAgo(700), daysAgo(900), null, 'garbage']),
        oos_order: pick([null, null, { since: null, reason: 'x' }]),
        hits: pick([[], [], [hit('dnu', true, 1)], [hit('sam', false, 0.9)], [hit('ofac_sdn', false, 0.99)]]),
        authority: {
          status: pick(['active', 'active', 'inactive', 'pending', 'none', 'unknown'] as const),
          granted_on: pick([null, '2001-01-01', daysAgo(5), 'not-a-date']),
          revocation_pending_on: pick([null, null, daysAhead(3), daysAgo(3)]),
          revoked_on: pick([null, null, daysAgo(1)]),
        },
        insurance: {
          bipd_on_file_usd: pick([null, 0, 300_000, 750_000, 1_000_000, 5_000_000]),
          bipd_required_usd: pick([null, 750_000, 1_000_000, 5_000_000]),
          cancellation_effective_on: pick([null, daysAhead(2), daysAhead(200), 'bad']),
        },
      });
      yield input({
        lookup: pick([{ kind: 'found', record }, { kind: 'found', record }, { kind: 'not_found' }, null,
          { kind: 'ambiguous', mc: '1', dot_numbers: ['1', '2'] }] as const),
        ruleset: pick([RULESET, RULESET, null]),
        snapshot: pick([SNAPSHOT, SNAPSHOT, null, { ...SNAPSHOT, data_as_of: 'bogus' }]),
        backendAvailable: pick([true, true, true, false]),
      });
    }
  }

  it('holds over 20,000 generated inputs', () => {
    let eligibleCount = 0;
    for (const decisionInput of generated(20_000)) {
      const decision = decide(decisionInput);
      if (decision.eligible) {
        eligibleCount++;
        expect(decision.reasons).toEqual([]);
        expect(decision.degraded).toBe(false);
        expect(decision.found).toBe(true);
        expect(['preferred', 'standard']).toContain(decision.tier);
        expect(decisionInput.lookup?.kind).toBe('found');
      } else {
        expect(decision.reasons.length).toBeGreaterThan(0);
      }
      if (decision.degraded) {
        expect(decision.tier).toBeNull();
        expect(decision.reasons.every((reason) => reasonsOfKind('degraded').includes(reason))).toBe(true);
      }
    }
    // The generator must actually reach the eligible branch, or the property proves nothing.
    expect(eligibleCount).toBeGreaterThan(10);
  });
});

describe('data_stale: the per-snapshot deadline (freshUntilMs) gives the per-source rule at every instant', () => {
  // The rule as written: stale when the snapshot or any present, age-limited source is older than its limit
  // (or its date is unreadable), or a required source is missing. decide() answers it with one comparison
  // against a deadline worked out once per snapshot and rule set; this compares the two around every deadline.
  function staleByRule(snapshot: SnapshotMeta, rules: PublishedRuleSet['rules'] | null, maxAgeSeconds: number, nowMs: number): boolean {
    const asOf = Date.parse(snapshot.data_as_of);
    if (!Number.isFinite(asOf) || nowMs - asOf > maxAgeSeconds * 1000) return true;
    if (!rules) return false;
    if (rules.sources.required.some((source) => !snapshot.sources[source]?.present)) return true;
    return Object.entries(rules.sources.max_age_days).some(([source, maxDays]) => {
      const freshness = snapshot.sources[source as keyof SnapshotMeta['sources']];
      if (!freshness?.present || maxDays === undefined) return false;
      const sourceAsOf = freshness.as_of ? Date.parse(freshness.as_of) : NaN;
      return !Number.isFinite(sourceAsOf) || nowMs - sourceAsOf > maxDays * 86_400_000;
    });
  }

  const hour = 3_600_000;
  const at = (ms: number) => new Date(ms).toISOString();
  const base = Date.parse(SNAPSHOT.data_as_of);
  const snapshots: SnapshotMeta[] = [
    SNAPSHOT,
    { ...SNAPSHOT, data_as_of: 'bogus' },
    { ...SNAPSHOT, sources: { ...SNAPSHOT.sources, sam: undefined } },
    { ...SNAPSHOT, sources: { ...SNAPSHOT.sources, oos: { present: false, as_of: null, rows: 0 } } },
    { ...SNAPSHOT, sources: { ...SNAPSHOT.sources, census: { present: true, as_of: 'not a date', rows: 1 } } },
    { ...SNAPSHOT, sources: { ...SNAPSHOT.sources, census: { present: true, as_of: null, rows: 1 } } },
    { ...SNAPSHOT, sources: { ...SNAPSHOT.sources, insurance: { present: true, as_of: at(base - 5 * 24 * hour), rows: 1 } } },
    { ...SNAPSHOT, sources: { ...SNAPSHOT.sources, ofac_cons: { present: true, as_of: at(base - 6 * 24 * hour - 7), rows: 1 } } },
    { ...SNAPSHOT, data_as_of: at(base - 30 * hour), sources: { ...SNAPSHOT.sources, authority: { present: true, as_of: '2026-11-16', rows: 1 } } },
  ];
  const ruleSets: Array<PublishedRuleSet['rules'] | null> = [
    null,
    DEFAULT_RULE_SET,
    { ...DEFAULT_RULE_SET, sources: { required: ['census'], max_age_days: { census: 0.5, insurance: 2.25 } } },
    { ...DEFAULT_RULE_SET, sources: { required: [], max_age_days: {} } },
  ];

  it('agrees one millisecond either side of every deadline, for every snapshot, rule set and age limit', () => {
    let compared = 0;
    let staleSeen = 0;
    for (const snapshot of snapshots) {
      for (const rules of ruleSets) {
        for (const maxAgeSeconds of [3600, 172_800, 1_000_000]) {
          const ruleset = rules === null ? null : { ...RULESET, rules };
          const instants = [base, base + maxAgeSeconds * 1000, ...Object.values(snapshot.sources)
            .flatMap((freshness) => (freshness?.as_of ? [Date.parse(freshness.as_of)] : []))
            .flatMap((asOf) => [0.5, 2.25, 7].map((days) => asOf + days * 86_400_000))];
          for (const instant of instants) {
            for (const nowMs of [instant - 1, instant, instant + 1]) {
              if (!Number.isFinite(nowMs)) continue;
              const stale = decide(input({ snapshot, ruleset, maxDataAgeSeconds: maxAgeSeconds, nowMs })).reasons.includes('data_stale');
              expect(stale, `${snapshot.data_as_of} ${JSON.stringify(rules?.sources)} ${maxAgeSeconds} ${nowMs}`)
                .toBe(staleByRule(snapshot, rules, maxAgeSeconds, nowMs));
              compared += 1;
              if (stale) staleSeen += 1;
            }
          }
        }
      }
    }
    // Both answers must occur, or the comparison proves nothing.
    expect(staleSeen).toBeGreaterThan(50);
    expect(compared - staleSeen).toBeGreaterThan(50);
  });
});

describe('decide: identity rules fire at their threshold and not below it', () => {
  const reasonsOf = (identity: CarrierRecord['identity'], rules = DEFAULT_RULE_SET) =>
    decide({ ...found({ identity }), ruleset: { ...RULESET, rules } }).reasons;

  it('a contact, address or name change first seen 30 days ago is recent under a 30-day window; 31 days ago is clean', () => {
    for (const [part, field, reason] of [['contact', 'email', 'recent_contact_change'], ['address', 'mailing_address', 'recent_address_change'],
      ['name', 'dba_name', 'recent_name_change']] as const) {
      expect(reasonsOf({ [part]: change(field, 30) })).toEqual([reason]);
      expect(reasonsOf({ [part]: change(field, 31) })).toEqual([]);
    }
  });

  it('the windows are the rule set\'s', () => {
    const rules = { ...DEFAULT_RULE_SET, identity: { ...DEFAULT_RULE_SET.identity, contact_change_days: 60 } };
    expect(reasonsOf({ contact: change('phone', 60) }, rules)).toEqual(['recent_contact_change']);
    expect(reasonsOf({ contact: change('phone', 61) }, rules)).toEqual([]);
  });

  it('shared_contact needs more than shared_contact_max unrelated carriers (default 3)', () => {
    const shared = (unrelated: number) => ({ shared: [{ field: 'email' as const, value: 'a@b.example', unrelated, dots: ['1'] }] });
    expect(reasonsOf(shared(4))).toEqual(['shared_contact']);
    expect(reasonsOf(shared(3))).toEqual([]);
  });

  it('authority_reactivated: within reactivation_days of the reactivation; after inactivity only when it lasted long_inactivity_days', () => {
    expect(reasonsOf({ reactivated: { on: daysAgo(90), after: 'revocation', since: daysAgo(200) } })).toEqual(['authority_reactivated']);
    expect(reasonsOf({ reactivated: { on: daysAgo(91), after: 'revocation', since: daysAgo(200) } })).toEqual([]);
    expect(reasonsOf({ reactivated: { on: daysAgo(10), after: 'inactivity', since: daysAgo(190) } })).toEqual(['authority_reactivated']);
    expect(reasonsOf({ reactivated: { on: daysAgo(10), after: 'inactivity', since: daysAgo(189) } })).toEqual([]);
  });

  it('evidence names field, before, after, dates and the other carriers by DOT', () => {
    const decision = decide(found({ identity: {
      contact: { field: 'phone', old: '6025550100', new: '4805550199', first_seen_on: daysAgo(2) },
      shared: [{ field: 'phone', value: '4805550199', unrelated: 5, dots: ['11', '12', '13', '14', '15'] }],
    } }));
    expect(decision.reasons).toEqual(['recent_contact_change', 'shared_contact']);
    expect(decision.evidence.reasons).toEqual([
      { reason: 'recent_contact_change', source: 'census', record_id: '344554', rule: { contact_change_days: 30 },
        facts: { field: 'phone', before: '6025550100', after: '4805550199', first_seen_on: daysAgo(2), days_ago: 2 } },
      { reason: 'shared_contact', source: 'census', record_id: '344554', rule: { shared_contact_max: 3 },
        facts: { field: 'phone', value: '4805550199', unrelated_carriers: 5, other_dot_numbers: ['11', '12', '13', '14', '15'] } },
    ]);
  });
});
