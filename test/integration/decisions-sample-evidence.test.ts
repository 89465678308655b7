// Evidence true to the source files: the bundled sample (real FMCSA / OFAC / SAM layouts) goes through the real
// ingest, and every reason of every sample carrier carries evidence whose facts are the values those files hold.
// Every verdict is then read back by id, identical.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_CARRIERS, seedSample } from '../../src/ingest/sample.js';
import { ensureRuleSet } from '../../src/store/rulesets.js';
import { startTestApp, type TestApp } from '../helpers/harness.js';

let t: TestApp;
let key: string;
const checked = new Set<string>();
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

beforeAll(async () => {
  t = await startTestApp();
  await seedSample(t.redis, t.keys, { quiet: true });
  await ensureRuleSet(t.redis, t.keys);
  ({ key } = await t.createKey());
  await t.app.parts.state.poll();
}, 60_000);

afterAll(async () => {
  await t.stop();
});

interface Item { reason: string; source: string; record_id: string | null; facts: Record<string, unknown>; rule: Record<string, unknown> | null }

// What the sample files say about each carrier (src/ingest/sample.ts, sample-carriers.ts).
const expected: Record<string, Partial<Item>> = {
  200002: { reason: 'ofac_sdn_match', source: 'ofac_sdn', record_id: '990001', facts: { matched_name: 'NORTHWIND MARITIME LOGISTICS' } },
  200003: { reason: 'possible_ofac_match', source: 'ofac_sdn', record_id: '990002' },
  200004: { reason: 'sam_exclusion', source: 'sam', record_id: 'S4MSAMPLE01' },
  200005: { reason: 'possible_sam_exclusion', source: 'sam', record_id: 'S4MSAMPLE02' },
  200006: { reason: 'out_of_service_order', source: 'oos', record_id: '2000061', facts: { order_date: day(-1), order_reason: 'New Entrant Revoked - Refusal of Audit/No Contact' } },
  200007: { reason: 'authority_not_active', source: 'authority', record_id: 'MC-200007', facts: { authority_status: 'inactive' } },
  200008: { reason: 'authority_revoked', source: 'revocations', facts: { revoked_effective_on: day(-20) } },
  200009: { reason: 'authority_revocation_pending', source: 'revocations', facts: { pending_effective_on: day(20) } },
  200010: { reason: 'unsatisfactory_safety_rating', source: 'census', record_id: '2000101', facts: { safety_rating: 'U' } },
  200011: { reason: 'conditional_safety_rating', source: 'census', facts: { safety_rating: 'C' }, rule: { conditional: 'review' } },
  200012: { reason: 'usdot_inactive', source: 'census', facts: { usdot_status: 'I' } },
  200015: { reason: 'insurance_cancellation_pending', source: 'insurance_history', facts: { cancellation_effective_on: day(10) }, rule: { cancellation_warning_days: 30 } },
  200016: { reason: 'new_authority', source: 'authority', rule: { new_authority_min_days: 90 } },
  200017: { reason: 'mcs150_outdated', source: 'census', facts: { mcs150_date: day(-1100) }, rule: { max_age_months: 24 } },
  200018: { reason: 'ambiguous_mc_number', source: 'census', facts: { dot_numbers: ['2000181', '2000182'] } },
  200020: { reason: 'authority_not_active', source: 'authority', facts: { authority_status: 'pending' } },
  200021: { reason: 'insurance_cancellation_pending', facts: { cancellation_effective_on: day(15) } },
  // The rules that follow the regulations cite them (docs/verdict-rules.md).
  200013: { reason: 'insurance_lapsed', source: 'insurance', facts: { bipd_in_force_usd: 0 }, rule: { regulation: '49 CFR 387.7' } },
  200014: { reason: 'insurance_below_federal_minimum', source: 'insurance', facts: { bipd_in_force_usd: 300_000, bipd_required_by_fmcsa_usd: 750_000 },
    rule: { regulation: '49 CFR 387.7, 49 CFR 387.9', federal_min_bipd_usd: 750_000 } },
  200019: { reason: 'insurance_below_federal_minimum', facts: { bipd_in_force_usd: 750_000, hazmat: true }, rule: { federal_min_bipd_usd: 5_000_000 } },
  200022: { reason: 'authority_records_disagree', source: 'census', record_id: '2000221',
    facts: { census_docket_status: 'I', carrier_file_authority_status: 'active' }, rule: { regulation: '49 U.S.C. 13901' } },
  200023: { reason: 'prior_revocation_link', source: 'census', facts: { prior_revoke_dot: '7654321', dot_number: '2000231' } },
  200024: { reason: 'intrastate_only_census', source: 'census', facts: { carrier_operation: 'C', authority_status: 'active' } },
  200025: { reason: 'insurance_lapsed', facts: { bipd_in_force_usd: 0, excess_not_counted_usd: 5_000_000, lapsed_on: day(-5) } },
  200026: { reason: 'insurance_lapsed', facts: { bipd_in_force_usd: 0, lapsed_on: day(-1) }, rule: { regulation: '49 CFR 387.7' } },
  200027: { reason: 'authority_not_active', facts: { authority_status: 'active', authority_scope: 'passenger' } },
};

describe('evidence of the sample carriers, ingested from real layouts', () => {
  it.each(DEMO_CARRIERS.map((carrier) => carrier.mc))('MC %s', async (mc) => {
    const verdict = await (await t.post('/v1/eligibility', { mc_number: mc }, { 'x-api-key': key })).json();
    // The verdicts themselves are sample-verdicts.test.ts' job; here: the evidence of whatever reasons they carry.
    const items = verdict.evidence.reasons as Item[];
    // Every reason has at least one item, and items follow the verdict's reason order.
    expect([...new Set(items.map((item) => item.reason))]).toEqual(verdict.reasons);
    const want = expected[mc];
    if (want && verdict.reasons.includes(want.reason)) {
      const item = items.find((candidate) => candidate.reason === want.reason);
      expect(item).toMatchObject(want);
      checked.add(mc);
    }
    // The sources screened against: every present source with its as-of and the SHA-256 of each file ingested.
    const sources = verdict.evidence.sources as Array<{ source: string; present: boolean; as_of: string | null; files: Array<{ sha256: string | null }> }>;
    const present = sources.filter((source) => source.present);
    expect(present.map((source) => source.source)).toEqual(expect.arrayContaining(['census', 'authority', 'insurance', 'oos', 'ofac_sdn', 'sam']));
    for (const source of present) {
      expect(source.as_of, source.source).toEqual(expect.any(String));
      for (const file of source.files) expect(file.sha256, source.source).toMatch(/^[0-9a-f]{64}$/);
    }
    const record = await (await t.get(`/v1/decisions/${verdict.decision_id}`, { 'x-api-key': key })).json();
    expect(record.verdict).toEqual(verdict);
  });

  it('checked the source facts of (nearly) every sample carrier with a reason', () => {
    expect(checked.size).toBeGreaterThanOrEqual(Object.keys(expected).length - 2);
  });

  it('the snapshot manifest of a record carries the ingest\'s per-file SHA-256 and row counts', async () => {
    const verdict = await (await t.post('/v1/eligibility', { mc_number: '100001' }, { 'x-api-key': key })).json();
    const record = await (await t.get(`/v1/decisions/${verdict.decision_id}`, { 'x-api-key': key })).json();
    const meta = JSON.parse(await t.redis.get(t.keys.snapshotMeta(record.snapshot.version)) ?? 'null');
    expect(record.snapshot).toEqual(meta);
    expect(record.snapshot.sources.census.rows).toBeGreaterThan(200);
  });
});
