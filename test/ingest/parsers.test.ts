import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { IngestError } from '../../src/ingest/errors.js';
import { legacyCarrierLine, quotedLine } from '../../src/ingest/layouts.js';
import { loadAuthority, MOTUS_AUTH_STATUS } from '../../src/ingest/sources/authority.js';
import { readCensus } from '../../src/ingest/sources/census.js';
import { SourceStats, type LoadContext } from '../../src/ingest/sources/common.js';
import { loadInsurance, loadInsuranceHistory } from '../../src/ingest/sources/insurance.js';
import { loadOosOrders } from '../../src/ingest/sources/oos.js';
import { loadRevocations } from '../../src/ingest/sources/revocations.js';
import { loadOfacAliases, loadOfacPrimary, loadSamExclusions } from '../../src/ingest/sources/watchlists.js';
import { WatchlistIndex } from '../../src/match/watchlist-index.js';

const REAL = 'test/fixtures/real';
const warnings: string[] = [];
const context = (today = '2024-08-01', units: LoadContext['insuranceUnits'] = 'auto'): LoadContext => ({
  today, nowMs: Date.now(), insuranceUnits: units, onBytes: () => undefined, warn: (m) => warnings.push(m),
});
let dir = '';
const file = async (name: string, text: string) => {
  const path = join(dir, name);
  await writeFile(path, text, 'latin1');
  return path;
};
beforeAll(async () => { dir = await mkdtemp(join(tmpdir(), 'ce-parsers-')); });

describe('legacy Revocation (real file, 2,244 rows)', () => {
  it('keeps involuntary carrier orders: pending when the effective date is ahead, revoked when passed', async () => {
    const stats = new SourceStats();
    const byMc = await loadRevocations(`${REAL}/fmcsa_li_legacy/revocation_2024_08_06.csv`, context('2024-07-01'), stats);
    expect(stats.rows).toBe(2244);
    expect(stats.skipped.get('voluntary')).toBeGreaterThan(300);
    expect(stats.skipped.get('broker authority')).toBeGreaterThan(0);
    // MC368053 also has an older order (2023) that already took effect.
    expect(byMc.get(368053)).toEqual({ pendingOn: '2024-07-26', revokedOn: '2023-09-11' });
    const later = await loadRevocations(`${REAL}/fmcsa_li_legacy/revocation_2024_08_06.csv`, context('2024-12-31'), new SourceStats());
    expect(later.get(368053)).toEqual({ pendingOn: null, revokedOn: '2024-07-26' });
    expect(byMc.get(438379)).toMatchObject({ pendingOn: '2024-07-26' });
  });
  it('reads a headerless Motus-style RevokeSuspend with hyphenated dockets', async () => {
    const path = await file('rs.csv', 'DOCKET_NUMBER,USDOT_NUMBER,OP_AUTH_TYPE,ORDER1_SERVE_DATE,ORDER1_TYPE_DESC,ORDER1_EFFECTIVE_DATE\nMC-424836,1234,Motor Carrier of Property (Except Household Goods),20260901,Involuntary Suspension,20261201\n');
    expect((await loadRevocations(path, context('2026-11-01'), new SourceStats())).get(424836)).toEqual({ pendingOn: '2026-12-01', revokedOn: null });
  });
});

describe('OFAC (real files)', () => {
  it('tiny SDN: CRLF, "-0- " nulls; vessels and aircraft skipped; aliases attached', async () => {
    const index = new WatchlistIndex();
    const stats = new SourceStats();
    const entities = await loadOfacPrimary(`${REAL}/ofac/tiny/sdn.csv`, 'ofac_sdn', index, context(), stats);
    expect(stats.rows).toBe(17);
    expect(stats.skipped.get('vessel')).toBe(4);
    expect(stats.skipped.get('aircraft')).toBe(2);
    expect(entities.get('10278')).toEqual({ individual: true, program: 'SDNT' });
    await loadOfacAliases(`${REAL}/ofac/tiny/alt.csv`, 'ofac_sdn', entities, index, context(), new SourceStats());
    expect(index.match(['HESA TRADE CENTER LLC'])[0]).toMatchObject({ entry_id: '11195', exact: true, matched_name: 'HESA TRADE CENTER' });
    expect(index.match(['Aircraft Avionics Parts and Support, Ltd'])[0]).toMatchObject({ entry_id: '19709', exact: true });
  });
  it('full 2021 SDN list: trailing Ctrl-Z line ignored, every row parsed', async () => {
    const index = new WatchlistIndex();
    const stats = new SourceStats();
    const entities = await loadOfacPrimary(`${REAL}/ofac/sdn_2021-07/sdn.csv`, 'ofac_sdn', index, context(), stats);
    expect(stats.rows).toBe(8976);
    const aliasStats = new SourceStats();
    await loadOfacAliases(`${REAL}/ofac/sdn_2021-07/alt.csv`, 'ofac_sdn', entities, index, context(), aliasStats);
    expect(aliasStats.rows).toBe(11910);
    expect(index.size).toBeGreaterThan(15_000);
  });
  it('consolidated non-SDN prim + alt load with the same layout', async () => {
    const index = new WatchlistIndex();
    const stats = new SourceStats();
    const entities = await loadOfacPrimary(`${REAL}/ofac/cons_nonsdn/cons_prim.csv`, 'ofac_cons', index, context(), stats);
    expect(stats.rows).toBe(442);
    await loadOfacAliases(`${REAL}/ofac/cons_nonsdn/cons_alt.csv`, 'ofac_cons', entities, index, context(), new SourceStats());
    expect(index.size).toBeGreaterThan(441);
  });
  it('crafted: CRLF, "-0-" nulls and a final \\x1A line', async () => {
    const path = await file('sdn.csv', '1,"ACME SANCTIONED TRADING CO.",-0- ,"SDGT",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- \r\n\x1A');
    const index = new WatchlistIndex();
    await loadOfacPrimary(path, 'ofac_sdn', index, context(), new SourceStats());
    expect(index.match(['Acme Sanctioned Trading LLC'])[0]).toMatchObject({ exact: true, score: 1, entry_id: '1' });
  });
  it('a malformed row aborts naming file and row', async () => {
    const path = await file('bad-sdn.csv', '1,"A",-0- \r\n');
    await expect(loadOfacPrimary(path, 'ofac_sdn', new WatchlistIndex(), context(), new SourceStats())).rejects.toThrow(/bad-sdn.csv, row 1: expected 12 fields \(an OFAC primary file\), found 3/);
  });
});

describe('SAM Exclusions V2 (real sample)', () => {
  it('keeps active records only and indexes firms and people', async () => {
    const index = new WatchlistIndex();
    const stats = new SourceStats();
    await loadSamExclusions(`${REAL}/sam_exclusions/SAM_Exclusions_Public_V2_sample_2023-11.csv`, index, context('2024-01-01'), stats);
    expect(stats.rows).toBe(16);
    expect(index.match(['ZTE Corporation'])[0]).toMatchObject({ list: 'sam', exact: true, entry_id: 'S4MRB9MLP' });
    expect(index.match(['TERRA KLEAN SOLUTIONS'])[0]).toMatchObject({ list: 'sam', exact: true });
    const later = new SourceStats();
    await loadSamExclusions(`${REAL}/sam_exclusions/SAM_Exclusions_Public_V2_sample_2023-11.csv`, new WatchlistIndex(), context('2027-01-01'), later);
    expect(later.skipped.get('terminated')).toBeGreaterThan(0);
  });
});

describe('authority', () => {
  it('legacy headerless Carrier: padded DOT, MC0-padded docket, zero BIPD on file is a value', async () => {
    const path = await file('carrier.txt', [
      '"MC012892","02217388"," ","","N","N","I","N","N","N","N","N","N","N","N","N","N","N","00000","N","Y","00000","N","N","Y","N C BRINKE","NORMAN CHARLES BRINKE","1200 SEABOARD DR","","HIALEAH","FL","US","33010","","","","","","","","","",""',
      legacyCarrierLine({ mc: 421775, dot: 344554, common: 'N', contract: 'A', bipdRequiredK: 750, bipdOnFileK: 1000, legalName: 'HULL' }),
      legacyCarrierLine({ mc: 5, dot: 6, common: 'A', commonRevPending: 'Y', bipdRequiredK: 750, bipdOnFileK: 0, legalName: 'X' }),
      quotedLine(['FF001234', '00000001', ...Array.from({ length: 41 }, () => 'N')]),
    ].join('\n'));
    const table = await loadAuthority(path, context());
    expect(table.layout).toBe('legacy');
    expect(table.byMc.get(12892)).toEqual({ dot: 2217388, status: 'none', revocationFlagged: false, bipdRequiredUsd: 0, bipdOnFileUsd: 0, covers: 0 });
    expect(table.byMc.get(421775)).toMatchObject({ status: 'active', bipdRequiredUsd: 750_000, bipdOnFileUsd: 1_000_000 });
    expect(table.byMc.get(5)).toMatchObject({ revocationFlagged: true, bipdOnFileUsd: 0 });
    expect(table.mcsByDot.get(344554)).toEqual([421775]);
    expect(table.stats.skipped.get('not an MC docket')).toBe(1);
  });
  it('legacy: a short row aborts with file, row and why', async () => {
    const path = await file('short.txt', '"MC1","2","3"\n');
    await expect(loadAuthority(path, context())).rejects.toThrow(IngestError);
    await expect(loadAuthority(path, context())).rejects.toThrow('row 1: expected 43 fields, found 3');
  });
  it('Motus Carrier: one row per authority kind, best kind wins, the same kind twice keeps the most restrictive, brokers do not count, unknown values warn', async () => {
    warnings.length = 0;
    const path = await file('motus.csv', [
      'DOCKET_NUMBER,USDOT_NUMBER,RFC_NUMBER,OP_AUTH_TYPE,OP_AUTH_STATUS,MIN_COV_AMOUNT,CARGO_REQ,BOND_REQ,BIPD_FILE,LEGAL_NAME',
      'MC-1001,11,,Broker of Property (Except Household Goods),Active,0,N,Y,0,A',
      'MC-1001,11,,Motor Carrier of Property (Except Household Goods),Inactive,750000,N,N,1000000,A',
      'MC-1002,12,,Motor Carrier of Property (Except Household Goods),Pending,750,N,N,750,B',
      'MC-1002,12,,Motor Carrier of Property (Except Household Goods),Active,750,N,N,750,B',
      'MC-1003,13,,Motor Carrier of Property (Except Household Goods),Dormant,750,N,N,750,C',
      'MC-1004,14,,Space Freight Authority,Active,750,N,N,750,D',
      'MC-1005,15,,Motor Carrier of Property (Except Household Goods),Inactive,750,N,N,750,E',
      'MC-1005,15,,Motor Carrier of Household Goods,Active,750,N,N,1000,E',
    ].join('\n'));
    const table = await loadAuthority(path, context());
    expect(table.layout).toBe('motus');
    expect(table.byMc.get(1001)).toMatchObject({ status: 'inactive', bipdOnFileUsd: 0, dot: 11 });
    // Pending and Active for the same kind: a conflict, read the most restrictive way (and warned about).
    expect(table.byMc.get(1002)).toMatchObject({ status: 'pending', bipdOnFileUsd: 750_000 });
    expect(table.byMc.get(1005)).toMatchObject({ status: 'active', bipdOnFileUsd: 750_000 });
    expect(table.byMc.get(1003)?.status).toBe('unknown');
    expect(table.byMc.get(1004)?.status).toBe('none');
    expect(warnings.join('\n')).toMatch(/unknown OP_AUTH_STATUS "DORMANT"[\s\S]*unknown OP_AUTH_TYPE "Space Freight Authority"/);
    expect(warnings.join('\n')).toContain('1 docket(s) listed more than once with different facts (e.g. MC1002); the most restrictive reading was kept');
    expect(MOTUS_AUTH_STATUS).toEqual({ ACTIVE: 'active', INACTIVE: 'inactive', PENDING: 'pending', WITHDRAWN: 'inactive' });
  });
});

describe('insurance', () => {
  it('Motus Insur: units explicit (dollars, thousands, auto)', async () => {
    const path = await file('insur.csv', 'DOCKET_NUMBER,USDOT_NUMBER,INS_FORM_CODE,INS_TYPE_CODE,INS_CLASS_CODE,MAX_COV_AMOUNT,UNDERL_LIM_AMOUNT,POLICY_NO,EFFECTIVE_DATE,INSURANCE_COMPANY_NAME,TRANS_DATE\nMC-1,1,BMC-91X,1,P,1000000,0,P1,20240101,X,20240101\nMC-2,2,BMC-91X,1,P,750,0,P2,20240101,X,20240101\nMC-3,3,BMC-34,2,P,0,0,P3,20240101,X,20240101\n');
    const auto = await loadInsurance(path, context('2024-06-01', 'auto'), new SourceStats());
    expect(auto.get(1)?.bipdOnFileUsd).toBe(1_000_000);
    expect(auto.get(2)?.bipdOnFileUsd).toBe(750_000);
    expect(auto.get(3)?.bipdOnFileUsd).toBe(0);
    expect((await loadInsurance(path, context('2024-06-01', 'dollars'), new SourceStats())).get(2)?.bipdOnFileUsd).toBe(750);
    // Dollars read as thousands: $1,000,000,000 is above any real policy, so the file is refused naming row and field.
    await expect(loadInsurance(path, context('2024-06-01', 'thousands'), new SourceStats())).rejects.toThrow(
      /insur\.csv, row 2, field MAX_COV_AMOUNT: BIPD amount \$1,000,000,000 is above the ceiling \$50,000,000/);
  });
  it('legacy Insur (9 fields, thousands) skips blank removal records; ActPendInsur keeps the future cancel date', async () => {
    const insur = await file('insur.txt', '"MC012345","1","P","01000","00000","POL1","01/01/2020","91X","INSURER"\n"MC012346","","","00000","00000","","","",""\n');
    const stats = new SourceStats();
    const byMc = await loadInsurance(insur, context(), stats);
    expect(byMc.get(12345)?.bipdOnFileUsd).toBe(1_000_000);
    expect(stats.skipped.get('blank removal record')).toBe(1);
    const act = await file('act.txt', '"MC000077","00000077","91X","BIPD/Primary","INS","P","01/01/2024","0","750","01/01/2024","09/15/2024"\n"MC000078","00000078","91X","BIPD/Primary","INS","P","01/01/2024","0","750","01/01/2024","06/15/2024"\n');
    const pending = await loadInsurance(act, context('2024-08-01'), new SourceStats());
    expect(pending.get(77)).toMatchObject({ bipdOnFileUsd: 750_000, bipdAfterCancellationUsd: 0, cancellationOn: '2024-09-15' });
    expect(pending.get(78)).toMatchObject({ bipdOnFileUsd: 0, cancellationOn: null, cancelledOn: '2024-06-15' });
  });
  it('InsHist: a future BIPD cancellation is pending; a replacement or a cargo policy is not', async () => {
    const row = (mc: string, ind: string, method: string, cancel: string) => quotedLine([mc, '00000001', '91X', 'cancelled', '35', ind,
      ind === ' ' ? 'BIPD/Primary' : 'CARGO', 'P', '750', 'P', '01/01/2020', '0', '1000', cancel, method, '', 'INS']);
    const path = await file('inshist.txt', [
      row('MC000010', ' ', 'TERM/CANCL', '09/01/2024'),
      row('MC000011', ' ', 'Term/REPL', '09/01/2024'),
      row('MC000012', '*', 'TERM/CANCL', '09/01/2024'),
      row('MC000013', ' ', 'TERM/CANCL', '01/01/2024'),
    ].join('\n'));
    const history = await loadInsuranceHistory(path, context('2024-08-01'), new SourceStats());
    expect([...history.pending].map(([mc, { on }]) => [mc, on])).toEqual([[10, '2024-09-01']]);
    // MC 13's cancellation already took effect: the docket's last BIPD event is a lapse.
    expect(history.last.get(13)).toEqual({ on: '2024-01-01', lapse: true, policy: 'P' });
  });
});

describe('OOS orders', () => {
  it('in force only when ACTIVE with no rescind date (an ACTIVE order with a rescind date is not)', async () => {
    const path = await file('oos.csv', 'DOT_NUMBER,LEGAL_NAME,DBA_NAME,OOS_DATE,OOS_REASON,STATUS,RESCIND_DATE\n4539029,NO NAME TRUCKING & REPAIR LLC,,2026-09-26,New Entrant Revoked - Refusal of Audit/No Contact,ACTIVE,\n00000077,X,,2026-01-01T00:00:00.000,Failure to pay civil penalty,ACTIVE,2026-02-01\n78,Y,,2026-01-01,Failure,INACTIVE,\n');
    const stats = new SourceStats();
    const byDot = await loadOosOrders(path, context('2026-11-01'), stats);
    expect([...byDot]).toEqual([[4539029, { since: '2026-09-26', reason: 'New Entrant Revoked - Refusal of Audit/No Contact' }]]);
    expect(stats.skipped.get('rescinded or not active')).toBe(2);
  });
});

describe('census', () => {
  const header = 'MCS150_DATE,ADD_DATE,STATUS_CODE,DOT_NUMBER,LEGAL_NAME,DBA_NAME,SAFETY_RATING,HM_Ind,DOCKET1PREFIX,DOCKET1,DOCKET2PREFIX,DOCKET2,DOCKET3PREFIX,DOCKET3,'
    + 'CARRIER_OPERATION,PRIOR_REVOKE_FLAG,PRIOR_REVOKE_DOT_NUMBER,DOCKET1_STATUS_CODE,DOCKET2_STATUS_CODE,DOCKET3_STATUS_CODE';
  it('maps columns by header name in any order and case; MC dockets only; dates with " 0000"', async () => {
    const shuffled = header.split(',').reverse().join(',').toLowerCase();
    const values = ['20250429 0000', '19890221', 'A', '344554', 'HULL COOPERATIVE ASSOCIATION', '', 'S', 'N', 'MC', '421775', 'FF', '99', 'MC', '0012892',
      'C', 'Y', '00123456', 'A', 'A', 'I'];
    const path = await file('census.csv', `${shuffled}\n${values.reverse().join(',')}\n`);
    const rows = [];
    for await (const row of readCensus(path, context(), new SourceStats())) rows.push(row);
    expect(rows).toEqual([{ row: 2, dot: 344554, legalName: 'HULL COOPERATIVE ASSOCIATION', dbaName: null, status: 'A', mcs150Date: '2025-04-29',
      addDate: '1989-02-21', safetyRating: 'S', hazmat: false, mcs: [421775, 12892], mcStatuses: ['A', 'I'], operation: 'C',
      priorRevokeDot: '123456', place: null,
      identity: { legal_name: 'HULL COOPERATIVE ASSOCIATION', dba_name: '', phone: '', cell_phone: '', email: '', physical_address: '', mailing_address: '', officers: '' } }]);
  });
  it('a missing required column or a bad value aborts with file, row and field', async () => {
    const missing = await file('c1.csv', 'DOT_NUMBER,LEGAL_NAME\n1,A\n');
    await expect(async () => { for await (const _ of readCensus(missing, context(), new SourceStats())) void _; }).rejects.toThrow('c1.csv, row 1, field DBA_NAME: required column missing from header');
    const bad = await file('c2.csv', `${header}\n20250429,19890221,A,344554,HULL,,S,N,MC,1,,,,,A,N,,A,,\n2025-13-45,19890221,A,344555,HULL,,S,N,MC,2,,,,,A,N,,A,,\n`);
    await expect(async () => { for await (const _ of readCensus(bad, context(), new SourceStats())) void _; }).rejects.toThrow('c2.csv, row 3, field MCS150_DATE: not a date: "2025-13-45"');
  });
});
