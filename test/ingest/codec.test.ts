import { describe, expect, it } from 'vitest';
import type { CarrierRecord } from '../../src/core/carrier.js';
import { decodeCarrier, encodeCarrier } from '../../src/store/carrier-codec.js';

const record: CarrierRecord = {
  mc: '421775', dot: '344554', legal_name: 'HULL | COOPERATIVE ASSOCIATION', dba_name: null, usdot_status: 'A',
  authority: { status: 'active', granted_on: '1989-02-21', revocation_pending_on: '', revoked_on: null },
  insurance: { bipd_on_file_usd: 0, bipd_required_usd: 750_000, cancellation_effective_on: '2026-12-01' },
  hazmat: true, safety_rating: 'S', mcs150_date: '2025-04-29', oos_order: { since: null, reason: 'New Entrant Revoked' },
  hits: [{ list: 'ofac_sdn', entry_id: '1', matched_name: 'A|B "quoted"', carrier_name: 'x', score: 0.934, exact: false, note: 'program SDGT' }],
};

describe('carrier codec', () => {
  it('round-trips every field (pipes in names become spaces)', () => {
    const decoded = decodeCarrier('421775', encodeCarrier(record));
    expect(decoded).toEqual({ kind: 'found', record: { ...record, legal_name: 'HULL   COOPERATIVE ASSOCIATION' } });
  });
  it('round-trips a day of every week of the years carrier dates span, decoded twice (the day memo) the same', () => {
    const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    const plain = { ...record, hits: [], oos_order: null };
    for (let ms = Date.UTC(1935, 0, 1); ms < Date.UTC(2101, 0, 1); ms += 86_400_000 * 7) {
      const dated = { ...plain, mcs150_date: day(ms), authority: { ...plain.authority, granted_on: day(ms + 86_400_000 * 3) } };
      for (let pass = 0; pass < 2; pass += 1) expect(decodeCarrier('421775', encodeCarrier(dated))).toEqual({ kind: 'found', record: { ...dated, legal_name: 'HULL   COOPERATIVE ASSOCIATION' } });
    }
  });
  it('keeps zero insurance distinct from unknown', () => {
    const unknown = { ...record, insurance: { ...record.insurance, bipd_on_file_usd: null } };
    expect((decodeCarrier('1', encodeCarrier(unknown)) as { record: CarrierRecord }).record.insurance.bipd_on_file_usd).toBeNull();
    expect((decodeCarrier('1', encodeCarrier(record)) as { record: CarrierRecord }).record.insurance.bipd_on_file_usd).toBe(0);
  });
  it('is compact: a typical record is well under 100 bytes', () => {
    const typical = { ...record, legal_name: 'ALPINE VALLEY TRUCKING LLC', hits: [], oos_order: null, authority: { ...record.authority, revocation_pending_on: null } };
    expect(encodeCarrier(typical).length).toBeLessThan(80);
  });
  it('round-trips the verdict-rule facts, and reads R records written before them', () => {
    const withFacts: CarrierRecord = {
      ...record, hits: [], authority: { ...record.authority, scope: 'household_goods' },
      insurance: { ...record.insurance, bipd_after_cancellation_usd: 0, lapsed_on: '2026-11-20', excess_not_counted_usd: 4_000_000 },
      census: { docket_status: 'I', carrier_operation: 'C', prior_revoke_dot: '1234567' },
    };
    const encoded = encodeCarrier(withFacts);
    expect(encoded.startsWith('S|ICh;r1234567;l')).toBe(true);
    expect(decodeCarrier('421775', encoded)).toEqual({ kind: 'found', record: { ...withFacts, legal_name: 'HULL   COOPERATIVE ASSOCIATION' } });
    const flagOnly: CarrierRecord = { ...record, hits: [], census: { docket_status: 'A', carrier_operation: 'A', prior_revoke_dot: '' } };
    expect((decodeCarrier('1', encodeCarrier(flagOnly)) as { record: CarrierRecord }).record.census).toEqual(flagOnly.census);
    // A record of a snapshot written before the facts: no census facts, no scope, decoded as before.
    const old = encodeCarrier({ ...record, hits: [] });
    expect(old.startsWith('R|')).toBe(true);
    expect((decodeCarrier('1', old) as { record: CarrierRecord }).record.census).toBeUndefined();
  });
  it('round-trips identity signals in front of the record (pipes in values become spaces); a carrier without any has none', () => {
    const identity: NonNullable<CarrierRecord['identity']> = {
      contact: { field: 'email', old: 'ops@acme.example', new: 'new|ops@x.example', first_seen_on: '2026-11-20' },
      address: { field: 'physical_address', old: null, new: '1 MAIN ST, PHOENIX, AZ, 85001, US', first_seen_on: '2026-11-01' },
      name: { field: 'legal_name', old: 'ACME', new: 'ACME 2', first_seen_on: '2026-10-01' },
      shared: [{ field: 'phone', value: '6025550100', unrelated: 4, dots: ['1', '2', '3', '4'] }],
      reactivated: { on: '2026-11-02', after: 'inactivity', since: '2026-01-01' },
    };
    const encoded = encodeCarrier({ ...record, identity });
    expect(encoded.startsWith('I|{')).toBe(true);
    const decoded = decodeCarrier('421775', encoded) as { record: CarrierRecord };
    expect(decoded.record.identity).toEqual({ ...identity, contact: { ...identity.contact, new: 'new ops@x.example' } });
    expect(decoded.record.hits).toEqual(record.hits);
    expect(encodeCarrier({ ...record, identity: {} })).toBe(encodeCarrier(record));
  });

  it('keeps the facts of a typical carrier to six bytes', () => {
    const typical = { ...record, legal_name: 'ALPINE VALLEY TRUCKING LLC', hits: [], oos_order: null, authority: { ...record.authority, revocation_pending_on: null } };
    const plain = encodeCarrier(typical).length;
    expect(encodeCarrier({ ...typical, census: { docket_status: 'A', carrier_operation: 'A', prior_revoke_dot: null } }).length).toBe(plain + 6);
  });
  it('encodes ambiguous MCs and decodes older JSON values', () => {
    expect(decodeCarrier('7', encodeCarrier({ ambiguous: ['1', '2'] }))).toEqual({ kind: 'ambiguous', mc: '7', dot_numbers: ['1', '2'] });
    expect(decodeCarrier('7', JSON.stringify({ ambiguous: ['3'] }))).toEqual({ kind: 'ambiguous', mc: '7', dot_numbers: ['3'] });
    expect(decodeCarrier('421775', JSON.stringify(record))).toEqual({ kind: 'found', record });
    expect(decodeCarrier('7', null)).toEqual({ kind: 'not_found' });
  });

  // A hit as the matcher writes it (the real OFAC list against a synthetic carrier), with its full evidence.
  const eagle: CarrierRecord = {
    ...record, mc: '3146944', legal_name: 'EAGLE IRONWOOD FREIGHT INC 28', dba_name: 'EAGLE LINES', hazmat: false, oos_order: null,
    hits: [{
      list: 'ofac_sdn', entry_id: '18249', matched_name: 'THE EAGLES L.L.C.', carrier_name: 'EAGLE LINES', score: 0.89, exact: false,
      note: 'program SYRIA', entity_type: 'entity', programs: ['SYRIA'], agreed: ['dba_name', 'primary_name'], list_as_of: '2026-11-28',
      explanation: '1 of 2/1 tokens aligned; spelling EAGLE~EAGLES 0.97; carrier only LINES; listed in SYRIA, carrier in US',
    }, {
      list: 'sam', entry_id: 'S4MSYN2500', matched_name: 'YUKON GRANITE LOGISTICS LLC 25', carrier_name: 'EAGLE IRONWOOD FREIGHT INC 28',
      score: 1, exact: true, note: 'Firm; Reciprocal; HHS', entity_type: 'individual', agreed: ['legal_name', 'alias', 'country', 'zip', 'odd|field'],
      confirmed: true, common_name: true, uei: 'ABC123DEF456', list_as_of: 'July 2021', explanation: 'all 4 tokens agree; ZIP 85001 agrees; common name',
    }, { list: 'dnu', entry_id: '3146944', matched_name: 'x', carrier_name: 'SOMEONE | ELSE', score: 0, exact: false }],
  };
  it('round-trips watch-list hits with their evidence exactly, naming the carrier by the record\'s own names', () => {
    const encoded = encodeCarrier(eagle);
    expect(encoded).toContain('|~');
    expect(encoded).not.toContain('EAGLE LINES\x1f');
    expect(decodeCarrier(eagle.mc, encoded)).toEqual({ kind: 'found', record: eagle });
  });
  it('keeps a record with a sanctions hit under the 256-byte listpack value limit (was ~370 bytes as JSON)', () => {
    const one = { ...eagle, hits: eagle.hits.slice(0, 1) };
    expect(Buffer.byteLength(encodeCarrier(one))).toBeLessThanOrEqual(200);
  });
  it('reads hits written as JSON before the compact form', () => {
    const json = JSON.stringify([[0, '18249', 'THE EAGLES L.L.C.', 'EAGLE LINES', 0.89, 0, 'program SYRIA',
      { t: 'e', p: ['SYRIA'], a: ['dba_name', 'primary_name'], d: '2026-11-28', x: 'spelling EAGLE~EAGLES 0.97' }]]);
    const old = `R|1|EAGLE IRONWOOD FREIGHT INC 28|EAGLE LINES|A|a||||||||S||||${json}`;
    expect((decodeCarrier('1', old) as { record: CarrierRecord }).record.hits).toEqual([{
      list: 'ofac_sdn', entry_id: '18249', matched_name: 'THE EAGLES L.L.C.', carrier_name: 'EAGLE LINES', score: 0.89, exact: false,
      note: 'program SYRIA', entity_type: 'entity', programs: ['SYRIA'], agreed: ['dba_name', 'primary_name'], list_as_of: '2026-11-28',
      explanation: 'spelling EAGLE~EAGLES 0.97',
    }]);
  });
});
