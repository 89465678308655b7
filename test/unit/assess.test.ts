// assess(): the one decision step the single check, batch and monitoring share. It must give decide()'s answer
// for the facts it is handed (the do-not-use view read at the fact's instant), run the caller's decider exactly
// once, and hand the decision to the per-account step unchanged while that step has nothing to apply.
import { describe, expect, it } from 'vitest';
import { assess, forAsker, NO_ASKER, type CarrierFacts } from '../../src/core/assess.js';
import type { SnapshotMeta } from '../../src/core/carrier.js';
import { decide, type Decision, type DecisionInput } from '../../src/core/decide.js';
import { DEFAULT_RULE_SET, type PublishedRuleSet } from '../../src/core/ruleset.js';
import { carrier, DAY, NOW } from '../helpers/decision-fixture.js';

const RULESET: PublishedRuleSet = { version: 3, published_at: '2026-11-01T00:00:00Z', rules: DEFAULT_RULE_SET };
const present = { present: true, as_of: '2026-11-21T06:00:00Z', rows: 1 };
const SNAPSHOT: SnapshotMeta = {
  version: 'v1', data_as_of: '2026-11-21T06:00:00Z', created_at: '2026-11-21T06:10:00Z', carrier_count: 1,
  sources: { census: present, authority: present, insurance: present, oos: present, ofac_sdn: present, sam: present },
};

/** A do-not-use view listing `mc` until `untilMs`. */
const listed = (mc: string, untilMs: number) => ({ has: (asked: string, nowMs: number) => asked === mc && nowMs < untilMs });
const nobodyListed = { has: () => false };

function facts(overrides: Partial<CarrierFacts> = {}): CarrierFacts {
  return {
    mc: '123456', lookup: { kind: 'found', record: carrier() }, snapshot: SNAPSHOT, ruleset: RULESET, doNotUse: nobodyListed,
    backendAvailable: true, maxDataAgeSeconds: 172_800, nowMs: NOW, ...overrides,
  };
}

function decideInput(f: CarrierFacts): DecisionInput {
  return {
    lookup: f.lookup, ruleset: f.ruleset, snapshot: f.snapshot, backendAvailable: f.backendAvailable,
    maxDataAgeSeconds: f.maxDataAgeSeconds, nowMs: f.nowMs, onDoNotUseList: f.doNotUse.has(f.mc, f.nowMs),
  };
}

describe('assess', () => {
  it("gives decide()'s decision for the same facts, for every kind of lookup and backend state", () => {
    const cases: CarrierFacts[] = [
      facts(),
      facts({ lookup: { kind: 'found', record: carrier({ safety_rating: 'U' }) } }),
      facts({ lookup: { kind: 'not_found' } }),
      facts({ lookup: { kind: 'ambiguous', mc: '123456', dot_numbers: ['1', '2'] } }),
      facts({ lookup: null, backendAvailable: false }),
      facts({ ruleset: null }),
      facts({ snapshot: null }),
    ];
    for (const f of cases) expect(assess(f, NO_ASKER)).toEqual(decide(decideInput(f)));
  });

  it('reads the do-not-use view at the facts\' instant and for their MC number only', () => {
    const view = listed('123456', NOW + DAY);
    expect(assess(facts({ doNotUse: view }), NO_ASKER).reasons).toContain('do_not_use');
    expect(assess(facts({ doNotUse: view }), NO_ASKER).tier).toBe('blocked');
    expect(assess(facts({ doNotUse: view, nowMs: NOW + DAY }), NO_ASKER).reasons).not.toContain('do_not_use');
    expect(assess(facts({ doNotUse: listed('999', NOW + DAY) }), NO_ASKER).eligible).toBe(true);
  });

  it("runs the caller's decider once with the facts' input and MC number, and answers with its decision", () => {
    const calls: Array<[DecisionInput, string]> = [];
    const memo = decide(decideInput(facts()));
    const decider = (input: DecisionInput, mc: string): Decision => {
      calls.push([input, mc]);
      return memo;
    };
    expect(assess(facts(), { account: 'acct', reference: 'ref-1' }, decider)).toBe(memo);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.[1]).toBe('123456');
    expect(calls[0]?.[0]).toEqual(decideInput(facts()));
  });

  it('hands the decision through the per-account step unchanged (no policy or override applies yet)', () => {
    const decision = decide(decideInput(facts()));
    expect(forAsker(decision, { mc: '123456', nowMs: NOW }, { account: 'acct', reference: null })).toBe(decision);
    expect(forAsker(decision, { mc: '123456', nowMs: NOW }, NO_ASKER)).toBe(decision);
  });
});
