// The rules that follow the regulations (issue 50, item 7; docs/verdict-rules.md), each held by a real-layout case:
// the bundled sample written at a fixed clock, plus a few carriers appended in the FMCSA layouts (census az4n-8mr2,
// legacy Carrier / ActPendInsur / InsHist / Revocation / AuthHist, Motus Insur / Carrier / AuthHist), through the
// real ingest into a real Redis, judged by decide() at that clock. Every case names the regulation it rests on.
import { appendFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SnapshotMeta } from '../../src/core/carrier.js';
import { decide, type Decision } from '../../src/core/decide.js';
import { DEFAULT_RULE_SET } from '../../src/core/ruleset.js';
import { CENSUS_COLUMNS, csvLine, isoDaysFrom, legacyCarrierLine, mmddyyyy, pad, quotedLine, yyyymmdd } from '../../src/ingest/layouts.js';
import { runIngest, type IngestFiles } from '../../src/ingest/run.js';
import { sampleSourceAsOf, writeSampleFiles } from '../../src/ingest/sample.js';
import { deleteByPrefix } from '../../src/redis/delete-by-prefix.js';
import { decodeCarrier } from '../../src/store/carrier-codec.js';
import { carrierBucket, redisKeys, type RedisKeys } from '../../src/store/keys.js';
import { readSnapshotStatus } from '../../src/store/snapshot-status.js';

const NOW = Date.parse('2026-11-23T12:00:00Z');
const day = (offset: number) => isoDaysFrom(NOW, offset);
const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const prefixes: string[] = [];
let dir = '';

interface TestCarrier {
  mc: number;
  hazmat?: boolean;
  /** Legacy Carrier fields. */
  common?: string; requiredK?: number; onFileK?: number; property?: string; passenger?: string; householdGoods?: string;
  /** Census fields. */
  docketStatus?: string; operation?: string; priorFlag?: string; priorDot?: string;
  /** ActPendInsur rows: [type description, policy, underlying K, max K, cancel date or ''] */
  policies?: Array<[string, string, number, number, string]>;
  /** InsHist rows: [policy, method (TERM/CANCL | Term/REPL), cancel date] */
  history?: Array<[string, string, string]>;
  /** Legacy Revocation: involuntary, effective on this day. */
  revokedOn?: string;
  /** Legacy AuthHist rows: [original action, served date, final action, final served date] */
  authHist?: Array<[string, string, string, string]>;
}

const dotOf = (mc: number) => mc * 10 + 7;

/** Appends the carriers' rows to the sample files in their real layouts; writes the AuthHist file if any has rows. */
async function withCarriers(files: IngestFiles, carriers: TestCarrier[]): Promise<IngestFiles> {
  const census: string[] = [];
  const authority: string[] = [];
  const insurance: string[] = [];
  const history: string[] = [];
  const revocations: string[] = [];
  const authHist: string[] = [];
  for (const c of carriers) {
    const dot = dotOf(c.mc);
    const values: Record<string, string> = {
      MCS150_DATE: `${yyyymmdd(day(-100))} 0000`, ADD_DATE: yyyymmdd(day(-3000)), STATUS_CODE: 'A', DOT_NUMBER: String(dot),
      CARRIER_OPERATION: c.operation ?? 'A', PRIOR_REVOKE_FLAG: c.priorFlag ?? 'N', PRIOR_REVOKE_DOT_NUMBER: c.priorDot ?? '',
      DOCKET1PREFIX: 'MC', DOCKET1: String(c.mc), DOCKET1_STATUS_CODE: c.docketStatus ?? 'A', HM_Ind: c.hazmat ? 'Y' : 'N',
      LEGAL_NAME: `RULE CASE ${c.mc} LLC`, SAFETY_RATING: '', PHY_STATE: 'IL', PHY_COUNTRY: 'US',
    };
    census.push(csvLine(CENSUS_COLUMNS.map((column) => values[column] ?? '')));
    authority.push(legacyCarrierLine({
      mc: c.mc, dot, common: c.common ?? 'A', bipdRequiredK: c.requiredK ?? (c.hazmat ? 1000 : 750), bipdOnFileK: c.onFileK ?? 1000,
      legalName: `RULE CASE ${c.mc} LLC`, property: c.property, passenger: c.passenger, householdGoods: c.householdGoods,
    }));
    for (const [type, policy, underlyingK, maxK, cancel] of c.policies ?? [['BIPD/Primary', `P${c.mc}`, 0, c.onFileK ?? 1000, '']]) {
      insurance.push(quotedLine([`MC${pad(c.mc, 6)}`, pad(dot, 8), '91X', type, 'PLAINS MUTUAL INSURANCE CO', policy, mmddyyyy(day(-3)),
        String(underlyingK), String(maxK), mmddyyyy(day(-365)), cancel === '' ? '' : mmddyyyy(cancel)]));
    }
    for (const [policy, method, cancel] of c.history ?? []) {
      history.push(quotedLine([`MC${pad(c.mc, 6)}`, pad(dot, 8), '91X', method === 'Term/REPL' ? 'replaced' : 'cancelled', '35', ' ',
        'BIPD/Primary', policy, '750', 'P', mmddyyyy(day(-365)), '0', '1000', mmddyyyy(cancel), method, '', 'PLAINS MUTUAL INSURANCE CO']));
    }
    if (c.revokedOn) {
      revocations.push(quotedLine([`MC${pad(c.mc, 6)}`, pad(dot, 8), 'COMMON', mmddyyyy(day(-40)), 'INVOLUNTARY REVOCATION', mmddyyyy(c.revokedOn)]));
    }
    for (const [original, served, final, finalServed] of c.authHist ?? []) {
      authHist.push(quotedLine([`MC${pad(c.mc, 6)}`, pad(dot, 8), '0', 'MOTOR PROPERTY COMMON CARRIER', original, mmddyyyy(served), final,
        finalServed === '' ? '' : mmddyyyy(finalServed), finalServed === '' ? '' : mmddyyyy(finalServed)]));
    }
  }
  const lines = (rows: string[]) => (rows.length > 0 ? `${rows.join('\n')}\n` : '');
  await appendFile(files.census, lines(census));
  await appendFile(files.authority, lines(authority));
  await appendFile(files.insurance!, lines(insurance));
  await appendFile(files.insuranceHistory!, lines(history));
  await appendFile(files.revocations!, lines(revocations));
  if (authHist.length === 0) return files;
  const authorityHistory = join(dirname(files.census), 'li_authhist_legacy.txt');
  await writeFile(authorityHistory, lines(authHist));
  return { ...files, authorityHistory };
}

const dirname = (path: string) => path.slice(0, path.lastIndexOf('/'));

let caseNumber = 0;
async function ingestCase(carriers: TestCarrier[], edit?: (files: IngestFiles) => Promise<IngestFiles>): Promise<RedisKeys> {
  caseNumber += 1;
  let files = await withCarriers(await writeSampleFiles(join(dir, `case${caseNumber}`), NOW), carriers);
  if (edit) files = await edit(files);
  const prefix = `test:${Math.random().toString(36).slice(2, 10)}:`;
  prefixes.push(prefix);
  const keys = redisKeys(prefix);
  await runIngest(redis, keys, {
    files, asOf: 'now', sourceAsOf: { ...sampleSourceAsOf(NOW), authority_history: new Date(NOW).toISOString() }, nowMs: NOW,
    useRedisDnu: false, force: true,
  });
  return keys;
}

async function verdict(keys: RedisKeys, mc: number): Promise<Decision> {
  const meta = (await readSnapshotStatus(redis, keys)).meta as SnapshotMeta;
  const text = String(mc);
  const lookup = decodeCarrier(text, await redis.hget(keys.carrierBucket(meta.version, carrierBucket(text)), text));
  return decide({
    lookup, ruleset: { version: 1, published_at: meta.created_at, rules: DEFAULT_RULE_SET }, snapshot: meta,
    backendAvailable: true, maxDataAgeSeconds: 172_800, nowMs: NOW,
  });
}

const brief = (decision: Decision) => ({ tier: decision.tier, reasons: decision.reasons });
const evidenceOf = (decision: Decision, reason: string) => decision.evidence.reasons.find((item) => item.reason === reason);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ce-verdict-rules-'));
});

afterAll(async () => {
  for (const prefix of prefixes) await deleteByPrefix(redis, prefix);
  redis.disconnect();
  await rm(dir, { recursive: true, force: true });
});

describe('49 CFR 387.7 / 387.9: insurance in force is a contiguous tower from $0, and a cancellation that took effect removes its policy', () => {
  let keys: RedisKeys;
  beforeAll(async () => {
    keys = await ingestCase([
      // Excess $1M-$5M over a primary whose cancellation took effect 5 days ago (ActPendInsur still lists both).
      { mc: 910001, policies: [['BIPD/Primary', 'P1', 0, 1000, day(-5)], ['BIPD/Excess', 'X1', 1000, 5000, '']] },
      // Excess only: no primary under it at all.
      { mc: 910002, policies: [['BIPD/Excess', 'X2', 1000, 5000, '']] },
      // A live primary and an excess layer on top: $5M in force, enough for a hazmat carrier.
      { mc: 910003, hazmat: true, requiredK: 5000, onFileK: 5000, policies: [['BIPD/Primary', 'P3', 0, 1000, ''], ['BIPD/Excess', 'X3', 1000, 5000, '']] },
      // A gap: primary to $750k, excess from $1M; only $750k is contiguous from $0.
      { mc: 910004, hazmat: true, requiredK: 5000, onFileK: 5000, policies: [['BIPD/Primary', 'P4', 0, 750, ''], ['BIPD/Excess', 'X4', 1000, 5000, '']] },
      // Cancelled yesterday in InsHist, gone from ActPendInsur, the frozen Carrier file still saying 01000.
      { mc: 910005, policies: [], history: [['P5', 'TERM/CANCL', day(-1)]] },
      // Cancelled yesterday in InsHist while the frozen ActPendInsur still lists the same policy as in force.
      { mc: 910006, policies: [['BIPD/Primary', 'P6', 0, 1000, '']], history: [['P6', 'TERM/CANCL', day(-1)]] },
      // Replaced yesterday (Term/REPL): coverage carried on by the new policy, which ActPendInsur lists.
      { mc: 910007, policies: [['BIPD/Primary', 'P7B', 0, 1000, '']], history: [['P7', 'Term/REPL', day(-1)]] },
      // An old cancellation of one policy and a newer policy in force: the newer one counts.
      { mc: 910008, policies: [['BIPD/Primary', 'P8B', 0, 1000, '']], history: [['P8', 'TERM/CANCL', day(-400)]] },
    ]);
  });

  it('an excess layer over a primary whose cancellation took effect counts nothing (49 CFR 387.7: insurance_lapsed)', async () => {
    const decision = await verdict(keys, 910001);
    expect(brief(decision)).toEqual({ tier: 'blocked', reasons: ['insurance_lapsed', 'insurance_not_on_file'] });
    expect(evidenceOf(decision, 'insurance_lapsed')).toMatchObject({
      facts: { bipd_in_force_usd: 0, excess_not_counted_usd: 5_000_000, lapsed_on: day(-5) }, rule: { regulation: '49 CFR 387.7' },
    });
  });

  it('an excess layer with no primary beneath it counts nothing (49 CFR 387.7)', async () => {
    expect(brief(await verdict(keys, 910002))).toEqual({ tier: 'blocked', reasons: ['insurance_lapsed', 'insurance_not_on_file'] });
  });

  it('primary plus excess from the primary\'s limit is one tower: $5M meets the hazmat amount (49 CFR 387.9)', async () => {
    expect(brief(await verdict(keys, 910003))).toEqual({ tier: 'standard', reasons: [] });
  });

  it('a gap between layers stops the tower: $750k in force for a hazmat carrier is below 49 CFR 387.9', async () => {
    const decision = await verdict(keys, 910004);
    expect(brief(decision)).toEqual({ tier: 'blocked', reasons: ['insurance_below_federal_minimum', 'insurance_below_minimum'] });
    expect(evidenceOf(decision, 'insurance_below_federal_minimum')).toMatchObject({
      facts: { bipd_in_force_usd: 750_000, excess_not_counted_usd: 5_000_000, hazmat: true },
      rule: { regulation: '49 CFR 387.7, 49 CFR 387.9', federal_min_bipd_usd: 5_000_000 },
    });
  });

  it('a cancellation that took effect yesterday beats the frozen Carrier file\'s 01000 (49 CFR 387.7)', async () => {
    const decision = await verdict(keys, 910005);
    expect(brief(decision)).toEqual({ tier: 'blocked', reasons: ['insurance_lapsed', 'insurance_not_on_file'] });
    expect(evidenceOf(decision, 'insurance_lapsed')?.facts).toMatchObject({ lapsed_on: day(-1), bipd_in_force_usd: 0 });
  });

  it('a cancellation that took effect removes the policy a frozen ActPendInsur still lists (49 CFR 387.7)', async () => {
    expect(brief(await verdict(keys, 910006))).toEqual({ tier: 'blocked', reasons: ['insurance_lapsed', 'insurance_not_on_file'] });
  });

  it('a replacement is not a lapse, and an old cancellation does not remove a later policy', async () => {
    expect(brief(await verdict(keys, 910007))).toEqual({ tier: 'standard', reasons: [] });
    expect(brief(await verdict(keys, 910008))).toEqual({ tier: 'standard', reasons: [] });
  });
});

describe('49 CFR 387.9: the FMCSA-required amount is a hard stop; the broker\'s higher minimum stays a review', () => {
  let keys: RedisKeys;
  beforeAll(async () => {
    keys = await ingestCase([
      { mc: 920001, hazmat: true, requiredK: 5000, onFileK: 1000 },
      { mc: 920002, onFileK: 500 },
      // FMCSA requires $300k of this small-vehicle carrier (49 CFR 387.303(b)); the broker wants $750k.
      { mc: 920003, requiredK: 300, onFileK: 500 },
    ]);
  });

  it('$1M on file where FMCSA requires $5M (hazmat) is insurance_below_federal_minimum (49 CFR 387.9)', async () => {
    const decision = await verdict(keys, 920001);
    expect(brief(decision)).toEqual({ tier: 'blocked', reasons: ['insurance_below_federal_minimum', 'insurance_below_minimum'] });
    expect(evidenceOf(decision, 'insurance_below_federal_minimum')).toMatchObject({
      facts: { bipd_in_force_usd: 1_000_000, bipd_required_by_fmcsa_usd: 5_000_000 }, rule: { federal_min_bipd_usd: 5_000_000 },
    });
  });

  it('$500k for general freight is below the $750k of 49 CFR 387.9', async () => {
    expect(brief(await verdict(keys, 920002))).toEqual({ tier: 'blocked', reasons: ['insurance_below_federal_minimum', 'insurance_below_minimum'] });
  });

  it('above the federal amount but below the broker\'s minimum is a review only', async () => {
    expect(brief(await verdict(keys, 920003))).toEqual({ tier: 'conditional', reasons: ['insurance_below_minimum'] });
  });
});

describe('49 U.S.C. 13905: a revocation that took effect is cleared only by a later grant or reinstatement', () => {
  let keys: RedisKeys;
  beforeAll(async () => {
    keys = await ingestCase([
      // Revoked yesterday; the Carrier file (dated today by its --as-of-source) still says active; no AuthHist row.
      { mc: 930001, revokedOn: day(-1) },
      // Revoked 30 days ago, reinstated 10 days ago (AuthHist).
      { mc: 930002, revokedOn: day(-30), authHist: [['REINSTATED', day(-10), '', '']] },
      // Revoked 30 days ago; the only grant on file is older.
      { mc: 930003, revokedOn: day(-30), authHist: [['GRANTED', '2015-03-02', '', '']] },
      // An involuntary revocation later discontinued (AuthHist final action).
      { mc: 930004, revokedOn: day(-30), authHist: [['INVOLUNTARY REVOCATION', day(-40), 'DISCONTINUED REVOCATION', day(-20)]] },
    ]);
  });

  it('revoked yesterday stays revoked although the authority file is dated today (49 U.S.C. 13905)', async () => {
    const decision = await verdict(keys, 930001);
    expect(brief(decision)).toEqual({ tier: 'blocked', reasons: ['authority_revoked'] });
    expect(evidenceOf(decision, 'authority_revoked')).toMatchObject({
      facts: { revoked_effective_on: day(-1) }, rule: { regulation: '49 U.S.C. 13905, 49 CFR 365' },
    });
  });

  it('a reinstatement after the revocation clears it; a grant before it does not', async () => {
    // Cleared of the hard stop; a reinstatement inside the rule set's window is still an identity review.
    expect(brief(await verdict(keys, 930002))).toEqual({ tier: 'conditional', reasons: ['authority_reactivated'] });
    expect(brief(await verdict(keys, 930003))).toEqual({ tier: 'blocked', reasons: ['authority_revoked'] });
    expect(brief(await verdict(keys, 930004))).toEqual({ tier: 'conditional', reasons: ['authority_reactivated'] });
  });

  it('Motus AuthHist: a status change to Active after the revocation clears it', async () => {
    const motus = await ingestCase([{ mc: 930005, revokedOn: day(-30) }, { mc: 930006, revokedOn: day(-30) }], async (files) => {
      const path = join(dirname(files.census), 'motus_authhist.csv');
      await writeFile(path, [
        'DOCKET_NUMBER,USDOT_NUMBER,OP_AUTH_TYPE,OP_AUTH_STATUS,REASON,STATUS_CHANGE_DATE',
        `MC-930005,${dotOf(930005)},Motor Carrier of Property (Except Household Goods),Active,Reinstated,${yyyymmdd(day(-5))}`,
        `MC-930006,${dotOf(930006)},Motor Carrier of Property (Except Household Goods),Inactive,Revoked,${yyyymmdd(day(-30))}`,
      ].join('\n') + '\n');
      return { ...files, authorityHistory: path };
    });
    expect(brief(await verdict(motus, 930005))).toEqual({ tier: 'conditional', reasons: ['authority_reactivated'] });
    expect(brief(await verdict(motus, 930006))).toEqual({ tier: 'blocked', reasons: ['authority_revoked'] });
  });
});

describe('49 U.S.C. 13901: only property authority authorises general freight', () => {
  it('legacy Carrier: active common authority for passengers only, or household goods only, is authority_not_active', async () => {
    const keys = await ingestCase([
      { mc: 940001, property: 'N', passenger: 'Y' },
      { mc: 940002, property: 'N', householdGoods: 'Y' },
      { mc: 940003, property: 'Y', householdGoods: 'Y' },
    ]);
    const passenger = await verdict(keys, 940001);
    expect(brief(passenger)).toEqual({ tier: 'blocked', reasons: ['authority_not_active'] });
    expect(evidenceOf(passenger, 'authority_not_active')).toMatchObject({
      facts: { authority_status: 'active', authority_scope: 'passenger' }, rule: { regulation: '49 U.S.C. 13901, 49 CFR 365' },
    });
    expect(brief(await verdict(keys, 940002))).toEqual({ tier: 'blocked', reasons: ['authority_not_active'] });
    expect(evidenceOf(await verdict(keys, 940002), 'authority_not_active')?.facts).toMatchObject({ authority_scope: 'household_goods' });
    expect(brief(await verdict(keys, 940003))).toEqual({ tier: 'standard', reasons: [] });
  });

  it('Motus Carrier: an active household-goods authority alone is not property authority', async () => {
    const keys = await ingestCase([{ mc: 940004 }, { mc: 940005 }], async (files) => {
      const path = join(dirname(files.census), 'motus_carrier.csv');
      const header = 'DOCKET_NUMBER,USDOT_NUMBER,RFC_NUMBER,OP_AUTH_TYPE,OP_AUTH_STATUS,MIN_COV_AMOUNT,CARGO_REQ,BOND_REQ,BIPD_FILE,'
        + 'CARGO_FILE,BOND_FILE,BUS_UNDELIVERABLE_MAIL,MAIL_UNDELIVERABLE_MAIL,DBA_NAME,LEGAL_NAME,BUS_STREET_PO,BUS_COLONIA,BUS_CITY,'
        + 'BUS_STATE_CODE,BUS_CTRY_CODE,BUS_ZIP_CODE,BUS_TELNO,MAIL_STREET_PO,MAIL_COLONIA,MAIL_CITY,MAIL_STATE_CODE,MAIL_CTRY_CODE,MAIL_ZIP_CODE';
      const row = (mc: number, type: string) => csvLine([`MC-${mc}`, dotOf(mc), '', type, 'Active', '750000', 'N', 'N', '1000000', 'N', 'N',
        'N', 'N', '', `RULE CASE ${mc} LLC`, '1 MAIN ST', '', 'SPRINGFIELD', 'IL', 'US', '62701', '', '', '', '', '', '', '']);
      await writeFile(path, [header, row(940004, 'Motor Carrier of Household Goods'),
        row(940005, 'Motor Carrier of Household Goods'), row(940005, 'Motor Carrier of Property (Except Household Goods)')].join('\n') + '\n');
      return { ...files, secondAuthority: path };
    });
    expect(brief(await verdict(keys, 940004))).toEqual({ tier: 'blocked', reasons: ['authority_not_active'] });
    expect(brief(await verdict(keys, 940005))).toEqual({ tier: 'standard', reasons: [] });
  });
});

describe('two FMCSA records, a chameleon sign, intrastate only: reviews', () => {
  let keys: RedisKeys;
  beforeAll(async () => {
    keys = await ingestCase([
      { mc: 950001, docketStatus: 'I' },
      { mc: 950002, priorFlag: 'Y', priorDot: '00765432' },
      { mc: 950003, priorFlag: 'Y' },
      { mc: 950004, priorFlag: 'Y', priorDot: String(dotOf(950004)) },
      { mc: 950005, operation: 'C' },
      { mc: 950006, operation: 'B', hazmat: true, requiredK: 5000, onFileK: 5000, policies: [['BIPD/Primary', 'P6', 0, 5000, '']] },
    ]);
  });

  it('census DOCKET1_STATUS_CODE I against an active Carrier file is authority_records_disagree (49 U.S.C. 13901)', async () => {
    const decision = await verdict(keys, 950001);
    expect(brief(decision)).toEqual({ tier: 'conditional', reasons: ['authority_records_disagree'] });
    expect(evidenceOf(decision, 'authority_records_disagree')).toMatchObject({
      source: 'census', facts: { census_docket_status: 'I', carrier_file_authority_status: 'active' }, rule: { regulation: '49 U.S.C. 13901' },
    });
  });

  it('PRIOR_REVOKE_FLAG Y linking another DOT, or naming none, is prior_revocation_link; its own DOT is not (49 U.S.C. 13905(a))', async () => {
    const linked = await verdict(keys, 950002);
    expect(brief(linked)).toEqual({ tier: 'conditional', reasons: ['prior_revocation_link'] });
    expect(evidenceOf(linked, 'prior_revocation_link')).toMatchObject({
      facts: { prior_revoke_dot: '765432' }, rule: { regulation: '49 U.S.C. 13905(a), 49 CFR 385.1005' },
    });
    expect(brief(await verdict(keys, 950003))).toEqual({ tier: 'conditional', reasons: ['prior_revocation_link'] });
    expect(brief(await verdict(keys, 950004))).toEqual({ tier: 'standard', reasons: [] });
  });

  it('CARRIER_OPERATION C or B (intrastate only) with interstate authority is intrastate_only_census (49 CFR 390.201)', async () => {
    const decision = await verdict(keys, 950005);
    expect(brief(decision)).toEqual({ tier: 'conditional', reasons: ['intrastate_only_census'] });
    expect(evidenceOf(decision, 'intrastate_only_census')).toMatchObject({
      facts: { carrier_operation: 'C', authority_status: 'active' }, rule: { regulation: '49 CFR 390.201, 49 U.S.C. 13901' },
    });
    expect(brief(await verdict(keys, 950006))).toEqual({ tier: 'conditional', reasons: ['intrastate_only_census'] });
  });
});
