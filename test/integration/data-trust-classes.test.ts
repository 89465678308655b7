// Issue 50: bad inputs by CLASS, not by case. Each file below is derived from the good corpus (test/fixtures/bad/good,
// real layouts) by one transformation that stands for a whole class: ambiguous structure, a coded field blanked or
// recoded, conflicting duplicate rows, implausible amounts, an unreadable row. Each case asserts either a one-line
// refusal naming file, row and field with the served snapshot byte-identical, or acceptance with the exact verdict
// changes. Real Redis, the real ingest, a fixed clock.
import { createHash } from 'node:crypto';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SnapshotMeta } from '../../src/core/carrier.js';
import { carrierReasons } from '../../src/core/decide.js';
import { DEFAULT_RULE_SET } from '../../src/core/ruleset.js';
import { GuardRefusal } from '../../src/ingest/change-guards.js';
import { readCsv } from '../../src/ingest/csv.js';
import { IngestError } from '../../src/ingest/errors.js';
import { csvLine } from '../../src/ingest/layouts.js';
import { runIngest, type IngestFiles, type IngestOptions } from '../../src/ingest/run.js';
import { sampleSourceAsOf } from '../../src/ingest/sample.js';
import { deleteByPrefix } from '../../src/redis/delete-by-prefix.js';
import { decodeCarrier } from '../../src/store/carrier-codec.js';
import { carrierBucket, redisKeys, type RedisKeys } from '../../src/store/keys.js';
import { readSnapshotStatus } from '../../src/store/snapshot-status.js';
import { CORPUS_NOW } from '../fixtures/bad/make-corpus.js';

const NOW = CORPUS_NOW;
const GOOD = new URL('../fixtures/bad/good/', import.meta.url).pathname;
const REAL = new URL('../fixtures/real/', import.meta.url).pathname;
const GOOD_FILES: IngestFiles = {
  census: join(GOOD, 'census_az4n-8mr2.csv'), authority: join(GOOD, 'li_carrier_legacy.txt'),
  insurance: join(GOOD, 'li_actpendinsur_legacy.txt'), insuranceHistory: join(GOOD, 'li_inshist_legacy.txt'),
  revocations: join(GOOD, 'li_revocation_legacy.csv'), oos: join(GOOD, 'oos_p2mt-9ige.csv'), ofacSdn: join(GOOD, 'sdn.csv'),
  ofacAlt: join(GOOD, 'alt.csv'), sam: join(GOOD, 'SAM_Exclusions_Public_V2.csv'), dnu: join(GOOD, 'do_not_use.csv'),
};

const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const prefixes: string[] = [];
let dir = '';
function freshKeys(): RedisKeys {
  const prefix = `test:${Math.random().toString(36).slice(2, 10)}:`;
  prefixes.push(prefix);
  return redisKeys(prefix);
}
const ingest = (keys: RedisKeys, files: Partial<IngestFiles> = {}, options: Partial<IngestOptions> = {}) => runIngest(redis, keys, {
  files: { ...GOOD_FILES, ...files }, asOf: 'now', sourceAsOf: sampleSourceAsOf(NOW), nowMs: NOW, useRedisDnu: false, ...options,
});

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

/** The reasons a carrier's stored record raises (the verdict minus freshness, which the fixed corpus clock owns). */
async function reasonsOf(keys: RedisKeys, mc: string): Promise<string[]> {
  const meta = (await readSnapshotStatus(redis, keys)).meta as SnapshotMeta;
  const lookup = decodeCarrier(mc, await redis.hget(keys.carrierBucket(meta.version, carrierBucket(mc)), mc));
  if (lookup.kind !== 'found') return [lookup.kind];
  return carrierReasons(lookup.record, DEFAULT_RULE_SET, NOW).sort();
}

/** Rewrites a headed CSV: `edit` gets the header and each row (cells), and may return extra rows to append. */
async function rewriteCsv(from: string, name: string, edit: (header: string[], row: string[] | null) => string[][] | void): Promise<string> {
  const out: string[] = [];
  let header: string[] | null = null;
  for await (const { cells } of readCsv(from)) {
    if (!header) {
      header = [...cells];
      edit(header, null);
      out.push(csvLine(header));
      continue;
    }
    const extra = edit(header, cells) ?? [];
    out.push(csvLine(cells), ...extra.map((row) => csvLine(row)));
  }
  const path = join(dir, name);
  await writeFile(path, `${out.join('\n')}\n`);
  return path;
}

const setColumn = (name: string, value: (old: string) => string) => (header: string[], row: string[] | null) => {
  if (row) row[header.indexOf(name)] = value(row[header.indexOf(name)] ?? '');
};

let servingKeys: RedisKeys;
let before = '';
const files: Record<string, string> = {};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ce-classes-'));
  servingKeys = freshKeys();
  await ingest(servingKeys);
  before = await served(prefixes[0]!);
  const census = GOOD_FILES.census;
  // Class 1: ambiguous structure.
  files.dupHeader = await rewriteCsv(census, 'census-dup-header.csv', (header, row) => {
    if (!row) header.push('SAFETY_RATING'); else row.push('S');
  });
  files.noAddDate = await rewriteCsv(census, 'census-no-add-date.csv', (header, row) => {
    const at = header.indexOf('ADD_DATE');
    if (row) row.splice(at, 1); else header.splice(at, 1);
  });
  const sam = (await readFile(GOOD_FILES.sam!, 'utf8')).replace('"Active Date","Termination Date"', '"Termination Date","Active Date"');
  await writeFile(files.samSwapped = join(dir, 'sam-dates-swapped.csv'), sam);
  await copyFile(GOOD_FILES.ofacSdn!, files.sdnCopy = join(dir, 'cons_prim.csv'));
  await writeFile(files.gzip = join(dir, 'census.csv'), gzipSync(await readFile(census)));
  await writeFile(files.zip = join(dir, 'oos.csv'), Buffer.concat([Buffer.from([0x50, 0x4b, 3, 4]), Buffer.alloc(60, 1)]));
  await writeFile(files.utf16 = join(dir, 'oos-utf16.csv'), Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(await readFile(GOOD_FILES.oos!, 'utf8'), 'utf16le')]));
  await writeFile(files.html = join(dir, 'oos-html.csv'), '<!DOCTYPE html><html><head><title>FMCSA System Maintenance Page</title></head></html>\n');
  await writeFile(files.json = join(dir, 'oos-json.csv'), '[{"dot_number":"1000051","status":"ACTIVE"}]\n');
  // Class 2: a coded field blanked or recoded for every row.
  files.statusBlank = await rewriteCsv(census, 'census-status-blank.csv', setColumn('STATUS_CODE', () => ''));
  files.ratingBlank = await rewriteCsv(census, 'census-rating-blank.csv', setColumn('SAFETY_RATING', () => ''));
  files.hazmatBlank = await rewriteCsv(census, 'census-hazmat-blank.csv', setColumn('HM_Ind', () => ''));
  files.oosRecoded = await rewriteCsv(GOOD_FILES.oos!, 'oos-status-A.csv', setColumn('STATUS', () => 'A'));
  // Class 3: conflicting duplicate rows (the restrictive copy comes LAST and FIRST, so no position can win).
  files.censusDup = await rewriteCsv(census, 'census-dup-dot.csv', (header, row) => {
    if (row?.[header.indexOf('DOT_NUMBER')] === '1000011') return [row.map((cell, i) => (header[i] === 'SAFETY_RATING' ? 'U' : cell))];
  });
  const carrier = (await readFile(GOOD_FILES.authority, 'utf8')).split('\n');
  const inactive = carrier[1]!.replace('"01000021"," ","","A"', '"01000021"," ","","I"');
  await writeFile(files.carrierDup = join(dir, 'carrier-dup-docket.txt'), [carrier[0], inactive, ...carrier.slice(1)].join('\n'));
  await writeFile(files.dnuDup = join(dir, 'dnu-dup.csv'), [
    'mc_number,reason,added_at,expires_at', 'MC-200001,Double-brokered a load,2026-11-13,',
    'MC-300004,Cargo theft ring,2026-11-01,', 'MC-300004,Late deliveries (temporary),2026-10-01,2026-11-01',
  ].join('\n'));
  // Class 6: a sanctions list that lost the entry a carrier is blocked by.
  await writeFile(files.sdnShort = join(dir, 'sdn-without-990001.csv'),
    (await readFile(GOOD_FILES.ofacSdn!, 'latin1')).split('\n').filter((line) => !line.startsWith('990001,')).join('\n'), 'latin1');
  // Class 4: amounts in the wrong units.
  await writeFile(files.dollars = join(dir, 'actpendinsur-dollars.txt'),
    (await readFile(GOOD_FILES.insurance!, 'utf8')).replace(/"0","(\d+)","/g, (_, k: string) => `"0","${Number(k) * 1000}","`));
  await writeFile(files.tenfold = join(dir, 'actpendinsur-tenfold.txt'),
    (await readFile(GOOD_FILES.insurance!, 'utf8')).replace(/"0","(\d+)","/g, (_, k: string) => `"0","${Number(k) * 10}","`));
  // Class 5: one unreadable row.
  files.noName = await rewriteCsv(census, 'census-one-empty-name.csv', (header, row) => {
    if (row?.[header.indexOf('DOT_NUMBER')] === '1000021') row[header.indexOf('LEGAL_NAME')] = '';
  });
});

afterAll(async () => {
  for (const prefix of prefixes) await deleteByPrefix(redis, prefix);
  redis.disconnect();
  await rm(dir, { recursive: true, force: true });
});

async function refused(given: Partial<IngestFiles>, line: string | ((files: Record<string, string>) => string), options: Partial<IngestOptions> = {}) {
  const failure = await ingest(servingKeys, given, options).catch((error: unknown) => error);
  expect(failure).toBeInstanceOf(IngestError);
  const message = (failure as Error).message;
  expect(message).toBe(typeof line === 'string' ? line : line(files));
  expect(message.split('\n')).toHaveLength(1);
  expect(await served(prefixes[0]!)).toBe(before);
  return failure as IngestError;
}

describe('class 1: nothing ambiguous is taken at face value', () => {
  it('a duplicated header name', async () => void await refused({ census: files.dupHeader }, () =>
    `${files.dupHeader}, row 1, field SAFETY_RATING: duplicated header name (columns 72 and 148)`));
  it('a column a rule reads, missing from the header', async () => void await refused({ census: files.noAddDate }, () =>
    `${files.noAddDate}, row 1, field ADD_DATE: required column missing from header`));
  it('SAM date columns swapped', async () => void await refused({ sam: files.samSwapped }, () =>
    `${files.samSwapped}, row 2, field Active Date: not a date: "Indefinite"`));
  it('an OFAC primary file given as the alias file (layout told by its width)', async () => void await refused({ ofacAlt: GOOD_FILES.ofacSdn }, () =>
    `${GOOD_FILES.ofacSdn}, row 1: expected 5 fields (an OFAC alias file), found 12; 12 fields is a primary file (sdn.csv / cons_prim.csv)`));
  it('the same file feeding two sources', async () => void await refused({ ofacCons: files.sdnCopy }, () =>
    `${files.sdnCopy}: ofac_cons: the same file (SHA-256 ${SDN_SHA.slice(0, 12)}…) as ${GOOD_FILES.ofacSdn} (ofac_sdn); one file never feeds two sources`,
  { sourceAsOf: { ...sampleSourceAsOf(NOW), ofac_cons: new Date(NOW).toISOString() } }));
  it.each([
    ['gzip', 'census', 'gzip', 'a gzip archive'], ['ZIP', 'oos', 'zip', 'a ZIP archive'], ['UTF-16', 'oos', 'utf16', 'UTF-16 text'],
    ['HTML', 'oos', 'html', 'an HTML page'], ['JSON', 'oos', 'json', 'JSON'],
  ] as const)('a %s file is named as such', async (_kind, source, key, what) => {
    await refused({ [source]: files[key] }, () => `${files[key]}: this is ${what}, not a CSV file; unpack or re-download it`);
  });
});

let SDN_SHA = '';
beforeAll(async () => { SDN_SHA = createHash('sha256').update(await readFile(GOOD_FILES.ofacSdn!)).digest('hex'); });

describe('class 2: a coded field blanked or recoded for every row is refused by name, and accepted only by name', () => {
  it('every STATUS_CODE blank: refused; --accept of that one guard publishes it and every carrier fails closed', async () => {
    const line = `${files.statusBlank}: blank:census.STATUS_CODE: 0.0% → 100.0%, limit ≤ 5.0%; check the file or accept this change with --accept blank:census.STATUS_CODE (and 2 more guard(s); see the table)`;
    const failure = await refused({ census: files.statusBlank }, line);
    // The verdict mix moves too: every carrier leaves eligible for usdot_inactive.
    expect((failure as GuardRefusal).rows.filter((row) => row.verdict === 'refused').map((row) => [row.guard, row.before, row.after])).toEqual([
      ['blank:census.STATUS_CODE', '0.0%', '100.0%'], ['eligible_drop', '247', '0'], ['reason:usdot_inactive', '1', '266'],
    ]);
    // Another guard's name accepts nothing; accepting one of three still refuses.
    await refused({ census: files.statusBlank }, line, { accept: ['blank:census.SAFETY_RATING'] });
    await refused({ census: files.statusBlank }, `${files.statusBlank}: eligible_drop: 247 → 0, limit fall ≤ 5.0% of carriers; check the file or accept this change with --accept eligible_drop (and 1 more guard(s); see the table)`,
      { accept: ['blank:census.STATUS_CODE'] });
    const keys = freshKeys();
    await ingest(keys);
    const accept = ['blank:census.STATUS_CODE', 'eligible_drop', 'reason:usdot_inactive'];
    const report = await ingest(keys, { census: files.statusBlank }, { accept });
    expect(report.guards.filter((row) => row.verdict === 'accepted').map((row) => row.guard)).toEqual(accept);
    expect(await reasonsOf(keys, '100001')).toEqual(['usdot_inactive']);
  });
  it('every SAFETY_RATING blank (unrated carriers were 53%)', async () => void await refused({ census: files.ratingBlank }, () =>
    `${files.ratingBlank}: blank:census.SAFETY_RATING: 53.0% → 100.0%, limit ≤ 58.0%; check the file or accept this change with --accept blank:census.SAFETY_RATING`));
  // Blank reads as hazmat (fail closed), so every carrier under the $5M hazmat amount of 49 CFR 387.9 also moves.
  it('every HM_Ind blank', async () => void await refused({ census: files.hazmatBlank }, () =>
    `${files.hazmatBlank}: blank:census.HM_IND: 0.0% → 100.0%, limit ≤ 5.0%; check the file or accept this change with --accept blank:census.HM_IND (and 3 more guard(s); see the table)`));
  it('OOS STATUS recoded (A for ACTIVE): unknown codes are counted, the orders stay in force, the file is refused', async () => void await refused({ oos: files.oosRecoded }, () =>
    `${files.oosRecoded}: unknown:oos.STATUS: 0.0% → 100.0% ("A"), limit ≤ 1.0%; check the file or accept this change with --accept unknown:oos.STATUS`));
});

describe('class 3: conflicting duplicate rows resolve to the most restrictive reading, counted in a warning', () => {
  it('a census DOT listed twice (S, then U): blocked as U', async () => {
    const keys = freshKeys();
    const report = await ingest(keys, { census: files.censusDup });
    expect(await reasonsOf(keys, '100001')).toEqual(['unsatisfactory_safety_rating']);
    expect(await reasonsOf(keys, '100002')).toEqual([]);
    expect(report.warnings).toContain(`${files.censusDup}: 1 DOT number(s) listed more than once (1 with different facts, e.g. DOT 1000011); the most restrictive reading of their rows was kept`);
  });
  it('a Carrier-file docket listed twice (inactive, then active): inactive', async () => {
    const keys = freshKeys();
    const report = await ingest(keys, { authority: files.carrierDup }, { force: true });
    // The census still says the docket is active: the two FMCSA records disagree (a review beside the hard stop).
    expect(await reasonsOf(keys, '100002')).toEqual(['authority_not_active', 'authority_records_disagree']);
    expect(report.warnings).toContain(`${files.carrierDup}: 1 docket(s) listed more than once with different facts (e.g. MC100002); the most restrictive reading was kept`);
  });
  it('a do-not-use MC listed twice (permanent, then an expired temporary ban): the permanent ban holds', async () => {
    const keys = freshKeys();
    await ingest(keys, { dnu: files.dnuDup });
    expect(await reasonsOf(keys, '300004')).toEqual(['do_not_use']);
  });
});

describe('class 4: implausible amounts refuse the source', () => {
  it('an ActPendInsur re-exported in dollars (1,000x)', async () => void await refused({ insurance: files.dollars }, () =>
    `${files.dollars}, row 1, field MAX_COV_AMOUNT: BIPD amount $1,000,000,000 is above the ceiling $50,000,000 (INGEST_MAX_BIPD_USD); is the file in other units (--insurance-units)?`));
  it('every amount 10x (under the ceiling): the median moved an order of magnitude', async () => void await refused({ insurance: files.tenfold }, () =>
    `${files.tenfold}: median:insurance.bipd_on_file_usd: $1,000,000 → $10,000,000, limit < 5× either way; check the file or accept this change with --accept median:insurance.bipd_on_file_usd`));
  it('accepted by name, the under-insured carriers move with the amounts', async () => {
    const keys = freshKeys();
    await ingest(keys);
    const serving = (await readSnapshotStatus(redis, keys)).meta as SnapshotMeta;
    const report = await ingest(keys, { insurance: files.tenfold }, { accept: ['median:insurance.bipd_on_file_usd'] });
    expect(report.guards.filter((row) => row.verdict === 'accepted').map((row) => row.guard)).toEqual(['median:insurance.bipd_on_file_usd']);
    expect(report.meta.medians?.['insurance.bipd_on_file_usd']).toBe(10_000_000);
    // Exactly the two carriers insured below the federal minimum ($750k on file vs $5M for hazmat) now look insured.
    const below = ['insurance_below_federal_minimum', 'insurance_below_minimum'];
    expect(report.newlyEligible.carriers).toEqual([{ mc: '200014', was: below }, { mc: '200019', was: below }]);
    for (const mc of ['200014', '200019']) expect(await reasonsOf(keys, mc)).toEqual([]);
    expect(serving.verdicts?.eligible).toBe((report.meta.verdicts?.eligible ?? 0) - 2);
  });
});

describe('class 5: one unreadable row is set aside, not a refusal of the whole file', () => {
  it('one empty legal name: accepted, that carrier fails closed, every other verdict unchanged', async () => {
    const keys = freshKeys();
    await ingest(keys, { census: files.noName });
    expect(await reasonsOf(keys, '100002')).toEqual(['carrier_record_unreadable']);
    for (const mc of ['100001', '200010', '300001']) expect(await reasonsOf(keys, mc)).toEqual(await reasonsOf(servingKeys, mc));
  });
});

describe('class 6: a file is judged by what it changes; a carrier a list stops blocking needs its own acceptance', () => {
  it('an SDN list missing the entry that blocks MC200002: refused naming the entry, and by that carrier; accepted by both names, it is eligible and listed with why', async () => {
    const keys = freshKeys();
    await ingest(keys);
    const refusal = await ingest(keys, { ofacSdn: files.sdnShort }, { force: true }).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(GuardRefusal);
    expect((refusal as Error).message).toBe(`${files.sdnShort}: removed:ofac_sdn: 5 entries → 1 removed (20.0%), first ofac_sdn 990001 "NORTHWIND MARITIME LOGISTICS", limit ≤ 1.0% removed; check the file or accept this change with --accept removed:ofac_sdn (and 1 more guard(s); see the table)`);
    // The carrier's own row names the entry whose removal lifts it.
    expect((refusal as GuardRefusal).rows.find((row) => row.guard === 'unblocked:MC200002')?.after).toBe('eligible (ofac_sdn 990001 "NORTHWIND MARITIME LOGISTICS" removed)');
    // Accepting the list change in general (other names) is not enough.
    await expect(ingest(keys, { ofacSdn: files.sdnShort }, { force: true, accept: ['newly_eligible', 'removed:ofac_sdn'] })).rejects.toThrow(/--accept unblocked:MC200002$/);
    const report = await ingest(keys, { ofacSdn: files.sdnShort }, { force: true, accept: ['removed:ofac_sdn', 'unblocked:MC200002'] });
    expect(report.newlyEligible).toEqual({ count: 1, carriers: [{ mc: '200002', was: ['ofac_sdn_match'], removed: ['ofac_sdn 990001 "NORTHWIND MARITIME LOGISTICS"'] }] });
    expect(report.removedEntries).toEqual([{ list: 'ofac_sdn', file: files.sdnShort, id: '990001', name: 'NORTHWIND MARITIME LOGISTICS' }]);
    expect(await reasonsOf(keys, '200002')).toEqual([]);
    expect(report.meta.verdicts).toMatchObject({ carriers: 267, eligible: 248 });
  });

  it('the real SDN list (Jul 2021, 8,976 entries) missing 5% of its entries, the one blocking MC200002 among them: refused in one line naming the file and the first removed entry; accepted by name, the report names exactly the removed entries', async () => {
    const good = (await readFile(GOOD_FILES.ofacSdn!, 'latin1')).split('\n').filter((line) => /^\d+,/.test(line));
    const goodIds = new Set(good.map((line) => line.split(',')[0]));
    const real = (await readFile(join(REAL, 'ofac/sdn_2021-07/sdn.csv'), 'latin1')).split('\r\n').filter((line) => /^\d+,/.test(line) && !goodIds.has(line.split(',')[0]));
    const full = [...good, ...real];
    // Every 20th real entry goes, and 990001 (NORTHWIND, which blocks MC200002); the entries the alias file names stay.
    const gone = new Set(['990001', ...real.filter((_, i) => i % 20 === 7).map((line) => line.split(',')[0]!)]);
    await writeFile(files.sdnFull = join(dir, 'sdn-full.csv'), `${full.join('\n')}\n`, 'latin1');
    await writeFile(files.sdnMissing = join(dir, 'sdn-missing-5pct.csv'), `${full.filter((line) => !gone.has(line.split(',')[0]!)).join('\n')}\n`, 'latin1');
    const keys = freshKeys();
    await ingest(keys, { ofacSdn: files.sdnFull });
    const snapshot = await served(keys.snapshotCurrent.slice(0, keys.snapshotCurrent.indexOf('{')));
    const refusal = await ingest(keys, { ofacSdn: files.sdnMissing }).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(GuardRefusal);
    const share = ((gone.size / full.length) * 100).toFixed(1);
    expect((refusal as Error).message).toBe(`${files.sdnMissing}: removed:ofac_sdn: ${full.length} entries → ${gone.size} removed (${share}%), first ofac_sdn 990001 "NORTHWIND MARITIME LOGISTICS", limit ≤ 1.0% removed; check the file or accept this change with --accept removed:ofac_sdn (and 1 more guard(s); see the table)`);
    expect(await served(keys.snapshotCurrent.slice(0, keys.snapshotCurrent.indexOf('{')))).toBe(snapshot);
    const report = await ingest(keys, { ofacSdn: files.sdnMissing }, { accept: ['removed:ofac_sdn', 'unblocked:MC200002'] });
    expect(report.guards.filter((row) => row.verdict === 'accepted').map((row) => row.guard)).toEqual(['removed:ofac_sdn', 'unblocked:MC200002']);
    expect(report.removedEntries.map((entry) => entry.id).sort()).toEqual([...gone].sort());
    expect(new Set(report.removedEntries.map((entry) => entry.file))).toEqual(new Set([files.sdnMissing]));
    const names = new Map(full.map((line) => [line.split(',')[0]!, /^\d+,"([^"]*)"/.exec(line)?.[1]]));
    for (const entry of report.removedEntries) expect(entry.name).toBe(names.get(entry.id));
    expect(report.newlyEligible.carriers).toEqual([{ mc: '200002', was: ['ofac_sdn_match'], removed: ['ofac_sdn 990001 "NORTHWIND MARITIME LOGISTICS"'] }]);
  });
});
