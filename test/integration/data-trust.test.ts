// Issue 7, the data layer: no input file, date or missing list may turn a blocked carrier eligible. The bad-file
// corpus (test/fixtures/bad, real layouts, written once by make-corpus.ts at CORPUS_NOW) goes through the real ingest
// into a real Redis at that same fixed clock. Each bad file is refused with ONE exact line and the served snapshot
// stays byte-identical; the files the ingest accepts give fail-closed verdicts.
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SnapshotMeta } from '../../src/core/carrier.js';
import { carrierReasons, decide } from '../../src/core/decide.js';
import { DEFAULT_RULE_SET, type SourceName } from '../../src/core/ruleset.js';
import { IngestError } from '../../src/ingest/errors.js';
import { runIngest, type IngestFiles, type IngestOptions } from '../../src/ingest/run.js';
import { sampleSourceAsOf } from '../../src/ingest/sample.js';
import { deleteByPrefix } from '../../src/redis/delete-by-prefix.js';
import { decodeCarrier } from '../../src/store/carrier-codec.js';
import { carrierBucket, redisKeys, type RedisKeys } from '../../src/store/keys.js';
import { readSnapshotStatus } from '../../src/store/snapshot-status.js';
import { CORPUS_NOW } from '../fixtures/bad/make-corpus.js';

const NOW = CORPUS_NOW;
const DAY = 86_400_000;
const BAD = new URL('../fixtures/bad/', import.meta.url).pathname;
const GOOD = join(BAD, 'good');
const GOOD_FILES: IngestFiles = {
  census: join(GOOD, 'census_az4n-8mr2.csv'), authority: join(GOOD, 'li_carrier_legacy.txt'),
  insurance: join(GOOD, 'li_actpendinsur_legacy.txt'), insuranceHistory: join(GOOD, 'li_inshist_legacy.txt'),
  revocations: join(GOOD, 'li_revocation_legacy.csv'), oos: join(GOOD, 'oos_p2mt-9ige.csv'), ofacSdn: join(GOOD, 'sdn.csv'),
  ofacAlt: join(GOOD, 'alt.csv'), sam: join(GOOD, 'SAM_Exclusions_Public_V2.csv'), dnu: join(GOOD, 'do_not_use.csv'),
};
const bad = (name: string) => join(BAD, name);

const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const prefixes: string[] = [];
function freshKeys(): RedisKeys {
  const prefix = `test:${Math.random().toString(36).slice(2, 10)}:`;
  prefixes.push(prefix);
  return redisKeys(prefix);
}

function ingest(keys: RedisKeys, files: Partial<IngestFiles> = {}, options: Partial<IngestOptions> = {}) {
  return runIngest(redis, keys, {
    files: { ...GOOD_FILES, ...files }, asOf: 'now', sourceAsOf: sampleSourceAsOf(NOW), nowMs: NOW, useRedisDnu: false, ...options,
  });
}

/** What the service serves: the pointer, and every key of the prefix with its exact serialised value. */
async function served(prefix: string): Promise<string> {
  const names: string[] = [];
  for await (const batch of redis.scanStream({ match: `${prefix}*`, count: 1000 }) as AsyncIterable<string[]>) names.push(...batch);
  // The ingest fencing counter is the ingests' own bookkeeping (every lock taken moves it), not served data.
  names.splice(0, names.length, ...names.filter((name) => !name.endsWith('snapshot:versions:fence')));
  names.sort();
  const pipeline = redis.pipeline();
  for (const name of names) pipeline.dump(name);
  const dumps = (await pipeline.exec()) ?? [];
  const hash = createHash('sha256');
  names.forEach((name, i) => hash.update(name).update('\0').update((dumps[i]?.[1] as Buffer | null) ?? Buffer.alloc(0)));
  return hash.digest('hex');
}

async function verdict(keys: RedisKeys, mc: string, nowMs = NOW) {
  const meta = (await readSnapshotStatus(redis, keys)).meta as SnapshotMeta;
  const lookup = decodeCarrier(mc, await redis.hget(keys.carrierBucket(meta.version, carrierBucket(mc)), mc));
  const decision = decide({
    lookup, ruleset: { version: 1, published_at: meta.created_at, rules: DEFAULT_RULE_SET }, snapshot: meta,
    backendAvailable: true, maxDataAgeSeconds: 172_800, nowMs,
  });
  return { eligible: decision.eligible, tier: decision.tier, reasons: decision.reasons, degraded: decision.degraded };
}

let servingKeys: RedisKeys;
let servingPrefix = '';
let before = '';

beforeAll(async () => {
  servingKeys = freshKeys();
  servingPrefix = prefixes[0]!;
  await ingest(servingKeys);
  before = await served(servingPrefix);
});

afterAll(async () => {
  for (const prefix of prefixes) await deleteByPrefix(redis, prefix);
  redis.disconnect();
});

// [case, files replaced, options, the exact one-line refusal]
type Refusal = [string, Partial<IngestFiles>, Partial<IngestOptions>, string];
const F = (name: string) => bad(name);
const REFUSALS: Refusal[] = [
  // 1. Rows of exact width: a truncated row in every source (and a quoted field open at end of file).
  ['census row cut after field 60', { census: F('census-truncated-row.csv') }, {}, `${F('census-truncated-row.csv')}, row 17: expected 147 fields, found 60`],
  ['authority file ends inside a quoted field', { authority: F('authority-truncated-row.txt') }, {}, `${F('authority-truncated-row.txt')}, row 267: missing closing quote`],
  ['insurance row short of fields', { insurance: F('insurance-truncated-row.txt') }, {}, `${F('insurance-truncated-row.txt')}, row 19: expected 11 fields, found 8`],
  ['insurance history row short of fields', { insuranceHistory: F('insurance_history-truncated-row.txt') }, {}, `${F('insurance_history-truncated-row.txt')}, row 2: expected 17 fields, found 10`],
  ['revocation row short of fields', { revocations: F('revocations-truncated-row.csv') }, {}, `${F('revocations-truncated-row.csv')}, row 5: expected 6 fields, found 4`],
  ['OOS file whose last line is cut mid-row', { oos: F('oos-truncated-row.csv') }, {}, `${F('oos-truncated-row.csv')}, row 3: expected 7 fields, found 2`],
  ['SDN row short of fields', { ofacSdn: F('ofac_sdn-truncated-row.csv') }, {}, `${F('ofac_sdn-truncated-row.csv')}, row 3: expected 12 fields, found 6`],
  ['SDN alias row short of fields', { ofacAlt: F('ofac_alt-truncated-row.csv') }, {}, `${F('ofac_alt-truncated-row.csv')}, row 2: expected 5 fields, found 3`],
  ['SAM row short of fields', { sam: F('sam-truncated-row.csv') }, {}, `${F('sam-truncated-row.csv')}, row 3: expected 31 fields, found 20`],
  ['DNU row short of fields', { dnu: F('dnu-truncated-row.csv') }, {}, `${F('dnu-truncated-row.csv')}, row 3: expected 4 fields, found 2`],
  // 3. Empty files (every source) and half files (every guarded source).
  ...([
    ['census', 'census', '.csv'], ['authority', 'authority', '.txt'], ['insurance', 'insurance', '.txt'],
    ['insuranceHistory', 'insurance_history', '.txt'], ['revocations', 'revocations', '.csv'], ['oos', 'oos', '.csv'],
    ['ofacSdn', 'ofac_sdn', '.csv'], ['ofacAlt', 'ofac_alt', '.csv'], ['sam', 'sam', '.csv'], ['dnu', 'dnu', '.csv'],
  ] as const).map(([key, name, ext]): Refusal => [`empty ${name} file`, { [key]: F(`${name}-empty${ext}`) }, {},
    `${F(`${name}-empty${ext}`)}: ${name === 'ofac_alt' ? 'ofac_sdn' : name}: the file has no data rows; check the download or re-run with --force`]),
  ['half census', { census: F('census-half.csv') }, {}, `census-half.csv: census: 134 rows is 50% below the serving snapshot's 268 (limit 10%); check the file or re-run with --force`],
  ['half authority', { authority: F('authority-half.txt') }, {}, `authority-half.txt: authority: 134 rows is 50% below the serving snapshot's 267 (limit 10%); check the file or re-run with --force`],
  ['half insurance', { insurance: F('insurance-half.txt') }, {}, `insurance-half.txt: insurance: 133 rows is 50% below the serving snapshot's 266 (limit 10%); check the file or re-run with --force`],
  ['half insurance history', { insuranceHistory: F('insurance_history-half.txt') }, {}, `insurance_history-half.txt: insurance_history: 1 rows is 50% below the serving snapshot's 2 (limit 10%); check the file or re-run with --force`],
  ['half revocations', { revocations: F('revocations-half.csv') }, {}, `revocations-half.csv: revocations: 2 rows is 50% below the serving snapshot's 4 (limit 10%); check the file or re-run with --force`],
  ['half OOS', { oos: F('oos-half.csv') }, {}, `oos-half.csv: oos: 1 rows is 50% below the serving snapshot's 2 (limit 10%); check the file or re-run with --force`],
  ['half SDN', { ofacSdn: F('ofac_sdn-half.csv') }, {}, `ofac_sdn-half.csv: ofac_sdn: 5 rows is 29% below the serving snapshot's 7 (limit 10%); check the file or re-run with --force`],
  ['half SDN aliases', { ofacAlt: F('ofac_alt-half.csv') }, {}, `sdn.csv: ofac_sdn: 6 rows is 14% below the serving snapshot's 7 (limit 10%); check the file or re-run with --force`],
  ['half SAM', { sam: F('sam-half.csv') }, {}, `sam-half.csv: sam: 2 rows is 33% below the serving snapshot's 3 (limit 10%); check the file or re-run with --force`],
  ['a list the serving snapshot has, left out', { sam: undefined }, {}, `--sam: sam: the serving snapshot has this source (3 rows) and this ingest leaves it out; pass the file or re-run with --force`],
  // 2. Impossible and future dates in every date field the ingest reads.
  ['SAM Termination Date impossible', { sam: F('sam-Termination_Date-impossible.csv') }, {}, `${F('sam-Termination_Date-impossible.csv')}, row 2, field Termination Date: not a date: "02/30/2026"`],
  ['SAM Creation_Date impossible', { sam: F('sam-Creation_Date-impossible.csv') }, {}, `${F('sam-Creation_Date-impossible.csv')}, row 2, field Creation_Date: not a date: "2026-02-30"`],
  ['SAM Creation_Date future', { sam: F('sam-Creation_Date-future.csv') }, {}, `${F('sam-Creation_Date-future.csv')}, field Creation_Date: newest Creation_Date is in the future: "2099-01-01"`],
  ['DNU added_at impossible', { dnu: F('dnu-added_at-impossible.csv') }, {}, `${F('dnu-added_at-impossible.csv')}, row 2, field added_at: not a calendar date: "2026-02-30"`],
  ['DNU added_at future', { dnu: F('dnu-added_at-future.csv') }, {}, `${F('dnu-added_at-future.csv')}, row 2, field added_at: "2099-01-01" is in the future (now is 2026-11-23T12:00:00.000Z)`],
  ['DNU expires_at impossible', { dnu: F('dnu-expires_at-impossible.csv') }, {}, `${F('dnu-expires_at-impossible.csv')}, row 2, field expires_at: not a calendar date: "2026-02-30"`],
  // 2 and 5. Flags: strict, never in the future; a list without any as-of is refused.
  ['--as-of in the future', {}, { asOf: '2099-01-01' }, `--as-of: "2099-01-01" is in the future (now is 2026-11-23T12:00:00.000Z)`],
  ['--as-of impossible', {}, { asOf: '2026-02-30' }, `--as-of: not a calendar date: "2026-02-30"`],
  ['--as-of-source in the future', {}, { sourceAsOf: { ...sampleSourceAsOf(NOW), ofac_sdn: '2026-11-24' } }, `--as-of-source, field ofac_sdn: "2026-11-24" is in the future (now is 2026-11-23T12:00:00.000Z)`],
  ['--as-of-source impossible', {}, { sourceAsOf: { ...sampleSourceAsOf(NOW), authority: '2026-02-30' } }, `--as-of-source, field authority: not a calendar date: "2026-02-30"`],
  ['SDN list with no as-of at all (no content date, flag or dated name)', {}, { sourceAsOf: { authority: new Date(NOW).toISOString(), insurance_history: new Date(NOW).toISOString() } },
    `${GOOD_FILES.ofacSdn}: no as-of date: the file carries none; pass --as-of-source ofac_sdn=YYYY-MM-DD (the date it was published) or put that date in the file name`],
];

// 5. A row that cannot be read (an impossible or future date in a census, insurance, revocation or OOS row) is set aside: the
// ingest is accepted, the report names file, row, field and why, and the carrier the row belongs to fails closed.
const SET_ASIDE: Refusal[] = [
  ['census MCS150_DATE impossible', { census: F('census-MCS150_DATE-impossible.csv') }, {}, `${F('census-MCS150_DATE-impossible.csv')}, row 2, field MCS150_DATE: not a date: "20260230"`],
  ['census MCS150_DATE future', { census: F('census-MCS150_DATE-future.csv') }, {}, `${F('census-MCS150_DATE-future.csv')}, row 2, field MCS150_DATE: date in the future: "20990101 0000"`],
  ['census ADD_DATE impossible', { census: F('census-ADD_DATE-impossible.csv') }, {}, `${F('census-ADD_DATE-impossible.csv')}, row 2, field ADD_DATE: not a date: "20261301"`],
  ['census ADD_DATE future', { census: F('census-ADD_DATE-future.csv') }, {}, `${F('census-ADD_DATE-future.csv')}, row 2, field ADD_DATE: date in the future: "20990101"`],
  ['insurance TRANS_DATE impossible', { insurance: F('insurance-TRANS_DATE-impossible.txt') }, {}, `${F('insurance-TRANS_DATE-impossible.txt')}, row 1, field TRANS_DATE: not a date: "02/30/2026"`],
  ['insurance TRANS_DATE future', { insurance: F('insurance-TRANS_DATE-future.txt') }, {}, `${F('insurance-TRANS_DATE-future.txt')}, row 1, field TRANS_DATE: date in the future: "01/01/2099"`],
  ['insurance EFFECTIVE_DATE impossible', { insurance: F('insurance-EFFECTIVE_DATE-impossible.txt') }, {}, `${F('insurance-EFFECTIVE_DATE-impossible.txt')}, row 1, field EFFECTIVE_DATE: not a date: "13/01/2026"`],
  ['insurance CANCL_EFFECTIVE_DATE impossible', { insurance: F('insurance-CANCL_EFFECTIVE_DATE-impossible.txt') }, {}, `${F('insurance-CANCL_EFFECTIVE_DATE-impossible.txt')}, row 1, field CANCL_EFFECTIVE_DATE: not a date: "02/29/2026"`],
  ['InsHist CANCL_EFFECTIVE_DATE impossible', { insuranceHistory: F('insurance_history-CANCL_EFFECTIVE_DATE-impossible.txt') }, {}, `${F('insurance_history-CANCL_EFFECTIVE_DATE-impossible.txt')}, row 2, field CANCL_EFFECTIVE_DATE: not a date: "04/31/2026"`],
  ['OOS_DATE impossible', { oos: F('oos-OOS_DATE-impossible.csv') }, {}, `${F('oos-OOS_DATE-impossible.csv')}, row 3, field OOS_DATE: not a date: "2026-02-30"`],
  ['OOS_DATE future', { oos: F('oos-OOS_DATE-future.csv') }, {}, `${F('oos-OOS_DATE-future.csv')}, row 3, field OOS_DATE: date in the future: "2099-01-01"`],
  ['OOS RESCIND_DATE impossible', { oos: F('oos-RESCIND_DATE-impossible.csv') }, {}, `${F('oos-RESCIND_DATE-impossible.csv')}, row 2, field RESCIND_DATE: not a date: "2026-13-01"`],
  ['revocation SERVE_DATE impossible', { revocations: F('revocations-SERVE_DATE-impossible.csv') }, {}, `${F('revocations-SERVE_DATE-impossible.csv')}, row 2, field SERVE_DATE: not a date: "02/30/2026"`],
  ['revocation SERVE_DATE future', { revocations: F('revocations-SERVE_DATE-future.csv') }, {}, `${F('revocations-SERVE_DATE-future.csv')}, row 2, field SERVE_DATE: date in the future: "01/01/2099"`],
  ['revocation EFFECTIVE_DATE impossible', { revocations: F('revocations-EFFECTIVE_DATE-impossible.csv') }, {}, `${F('revocations-EFFECTIVE_DATE-impossible.csv')}, row 2, field EFFECTIVE_DATE: not a date: "00/10/2026"`],
];

describe('an unreadable row is set aside: accepted, listed in the report, its carrier fails closed', () => {
  it.each(SET_ASIDE)('%s', async (_name, files, options, line) => {
    const keys = freshKeys();
    const report = await ingest(keys, files, options);
    expect(report.quarantined).toHaveLength(1);
    const row = report.quarantined[0]!;
    const where = [row.file, row.row === null ? null : `row ${row.row}`, row.field === null ? null : `field ${row.field}`].filter(Boolean).join(', ');
    expect(`${where}: ${row.why}`).toBe(line);
    expect(report.meta.quarantined_rows).toBe(1);
    const mc = row.mc !== null ? String(row.mc) : await mcOfDot(row.dot!);
    expect(await verdict(keys, mc)).toMatchObject({ eligible: false });
    const meta = (await readSnapshotStatus(redis, keys)).meta as SnapshotMeta;
    const lookup = decodeCarrier(mc, await redis.hget(keys.carrierBucket(meta.version, carrierBucket(mc)), mc));
    expect(lookup.kind === 'found' && lookup.record.unreadable).toEqual([`${row.source}.${row.field}`]);
    // The record's own reasons name it (a hard stop); the verdict may also be data_stale (some files here are old by design).
    expect(lookup.kind === 'found' && carrierReasons(lookup.record, DEFAULT_RULE_SET, NOW)).toContain('carrier_record_unreadable');
  });
});

/** The MC docket of a DOT in the good census (DOCKET1). */
async function mcOfDot(dot: number): Promise<string> {
  const text = await import('node:fs/promises').then((fs) => fs.readFile(GOOD_FILES.census, 'utf8'));
  const [header, ...rows] = text.trim().split('\n').map((line) => line.split(','));
  const dotAt = header!.indexOf('DOT_NUMBER');
  const docketAt = header!.indexOf('DOCKET1');
  const found = rows.find((cells) => Number(cells[dotAt]) === dot);
  if (!found) throw new Error(`DOT ${dot} not in the good census`);
  return found[docketAt]!;
}

describe('bad files are refused with one exact line; the served snapshot stays byte-identical', () => {
  it.each(REFUSALS)('%s', async (_name, files, options, line) => {
    const failure = await ingest(servingKeys, files, options).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(IngestError);
    const message = (failure as Error).message;
    // Half-file lines name the file by base name (the meta's), the others by the path given.
    expect(line.includes('/') ? message : message.replace(/^.*\//, '')).toBe(line);
    expect(message.split('\n')).toHaveLength(1);
    expect(await served(servingPrefix)).toBe(before);
  });
});

describe('files the ingest accepts give fail-closed verdicts', () => {
  it('good files: the documented verdicts, every required list present, as-of from content or flag, SHA-256 per file', async () => {
    const meta = (await readSnapshotStatus(redis, servingKeys)).meta!;
    expect(await verdict(servingKeys, '100001')).toEqual({ eligible: true, tier: 'preferred', reasons: [], degraded: false });
    expect(await verdict(servingKeys, '200010')).toMatchObject({ tier: 'blocked', reasons: ['unsatisfactory_safety_rating'] });
    expect(await verdict(servingKeys, '200006')).toMatchObject({ tier: 'blocked', reasons: ['out_of_service_order'] });
    const from = Object.fromEntries(Object.entries(meta.sources).filter(([, s]) => s?.present).map(([name, s]) => [name, s!.as_of_from ?? null]));
    expect(from).toEqual({
      census: 'content', authority: 'flag', insurance: 'content', insurance_history: 'flag', revocations: 'content', oos: 'content',
      ofac_sdn: 'flag', sam: 'content', dnu: null,
    });
    expect(meta.sources.census!.as_of).toBe('2026-11-23T00:00:00.000Z');
    expect(meta.sources.ofac_sdn!.files!.map((f) => f.name)).toEqual(['sdn.csv', 'alt.csv']);
    const sha = createHash('sha256').update(await import('node:fs/promises').then((fs) => fs.readFile(GOOD_FILES.census))).digest('hex');
    expect(meta.sources.census!.files).toEqual([{ name: 'census_az4n-8mr2.csv', sha256: sha, bytes: expect.any(Number), rows: 268 }]);
    expect(meta.sources.census!.ingested_at).toBe(new Date(NOW).toISOString());
  });

  it('an old SDN list (as-of from the flag, older than its max age) makes verdicts data_stale', async () => {
    const keys = freshKeys();
    await ingest(keys, {}, { sourceAsOf: { ...sampleSourceAsOf(NOW), ofac_sdn: '2021-07-01' } });
    expect(await verdict(keys, '100001')).toEqual({ eligible: false, tier: null, reasons: ['data_stale'], degraded: true });
  });

  it('screening lists left out: data_stale under the default rule set, never eligible', async () => {
    const keys = freshKeys();
    await runIngest(redis, keys, { files: { census: GOOD_FILES.census, authority: GOOD_FILES.authority }, asOf: 'now', sourceAsOf: sampleSourceAsOf(NOW), nowMs: NOW, useRedisDnu: false });
    expect(await verdict(keys, '200004')).toEqual({ eligible: false, tier: null, reasons: ['data_stale'], degraded: true });
  });

  it('an unknown or empty revocation type blocks, and is counted in the warnings', async () => {
    const keys = freshKeys();
    const report = await ingest(keys, { revocations: bad('revocations-unknown-type.csv') });
    expect(await verdict(keys, '300010')).toMatchObject({ tier: 'blocked', reasons: ['authority_revoked'] });
    expect(await verdict(keys, '300011')).toMatchObject({ tier: 'blocked', reasons: ['authority_revoked'] });
    expect(report.warnings).toContain(`${bad('revocations-unknown-type.csv')}: 2 order(s) with an empty or unknown REVOCATION_TYPE ("Suspension", "") counted as involuntary (they block)`);
  });

  // 49 U.S.C. 13905: only a later grant or reinstatement clears a revocation (test/integration/verdict-rules.test.ts
  // reads one from AuthHist); authority data dated after it and saying "active" does not.
  it('a revocation that took effect blocks whether the authority file is older or newer than it', async () => {
    const older = freshKeys();
    await ingest(older, { revocations: bad('revocations-newer-than-authority.csv') },
      { sourceAsOf: { ...sampleSourceAsOf(NOW), authority: new Date(NOW - 3 * DAY).toISOString() } });
    expect(await verdict(older, '300012')).toMatchObject({ tier: 'blocked', reasons: ['authority_revoked'] });
    const newer = freshKeys();
    await ingest(newer, { revocations: bad('revocations-newer-than-authority.csv') });
    expect(await verdict(newer, '300012')).toMatchObject({ tier: 'blocked', reasons: ['authority_revoked'] });
  });

  it('Motus and legacy authority side by side: where they disagree, the more restrictive status blocks', async () => {
    const keys = freshKeys();
    const report = await ingest(keys, { secondAuthority: bad('authority-motus-disagrees.csv') });
    // The census says the docket is active and the merged Carrier files say not: two FMCSA records disagree too.
    expect(await verdict(keys, '100001')).toMatchObject({ tier: 'blocked', reasons: ['authority_not_active', 'authority_records_disagree'] });
    expect(await verdict(keys, '100002')).toMatchObject({ eligible: true, tier: 'standard' });
    expect(report.warnings.some((w) => w.startsWith('authority files disagree on 1 docket(s) (e.g. MC100001 active/inactive)'))).toBe(true);
  });

  it('future dates in fields that may lie ahead fail closed: a rescind date ahead keeps the order, a policy not yet in effect is not on file', async () => {
    const keys = freshKeys();
    await ingest(keys, { oos: bad('oos-RESCIND_DATE-future.csv'), insurance: bad('insurance-EFFECTIVE_DATE-future.txt') });
    expect(await verdict(keys, '100005')).toMatchObject({ tier: 'blocked', reasons: ['out_of_service_order'] });
    // Nothing in force yet is nothing in force: a hard stop (49 CFR 387.7).
    expect(await verdict(keys, '100001')).toMatchObject({ tier: 'blocked', reasons: ['insurance_lapsed', 'insurance_not_on_file'] });
  });

  it('a half do-not-use file is accepted (a lifted ban is a row less); the rows it keeps still block', async () => {
    const keys = freshKeys();
    await ingest(keys, { dnu: bad('dnu-half.csv') });
    expect(await verdict(keys, '200001')).toMatchObject({ tier: 'blocked', reasons: ['do_not_use'] });
  });

  it('--force accepts an empty list, which then counts as not screened (data_stale), never as "no hits"', async () => {
    const keys = freshKeys();
    await ingest(keys, { sam: bad('sam-empty.csv') }, { force: true });
    expect(await verdict(keys, '200004')).toEqual({ eligible: false, tier: null, reasons: ['data_stale'], degraded: true });
  });
});

// Typed list of sources the corpus covers (kept here so a new source shows up as a compile error in review).
export const COVERED: SourceName[] = ['census', 'authority', 'insurance', 'insurance_history', 'revocations', 'oos', 'ofac_sdn', 'sam', 'dnu'];
