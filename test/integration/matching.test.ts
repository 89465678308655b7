// Issue 8 end to end: the real OFAC SDN (2021, with add.csv), consolidated non-SDN and SAM sample files go
// through the real ingest into Redis, next to planted carriers; the stored records must carry the hit evidence
// and raise the reasons the decision rules promise.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CarrierRecord, SnapshotMeta } from '../../src/core/carrier.js';
import { carrierReasons } from '../../src/core/decide.js';
import { DEFAULT_RULE_SET } from '../../src/core/ruleset.js';
import { CENSUS_COLUMNS, csvLine, isoDaysFrom, legacyCarrierLine, yyyymmdd } from '../../src/ingest/layouts.js';
import { runIngest, type IngestOptions } from '../../src/ingest/run.js';
import { createRedis } from '../../src/redis/connection.js';
import { deleteByPrefix } from '../../src/redis/delete-by-prefix.js';
import { decodeCarrier } from '../../src/store/carrier-codec.js';
import { carrierBucket, redisKeys } from '../../src/store/keys.js';
import { readSnapshotStatus } from '../../src/store/snapshot-status.js';
import { testRedisTarget } from '../helpers/harness.js';

const REAL = 'test/fixtures/real';
const redis = createRedis(testRedisTarget(), 'background');
const prefix = `test:${Math.random().toString(36).slice(2, 10)}:`;
const keys = redisKeys(prefix);
let dir = '';
let meta: SnapshotMeta;

interface Planted { mc: number; legal: string; dba?: string; city: string; state: string; zip: string }
const PLANTED: Planted[] = [
  { mc: 700001, legal: 'BANCO NACIONAL DE CUBA S.A.', city: 'MIAMI', state: 'FL', zip: '33101' },
  { mc: 700002, legal: 'HEZBOLLAH TRUCKING LLC', city: 'DEARBORN', state: 'MI', zip: '48120' },
  { mc: 700003, legal: 'ANTONIO FLORES', city: 'HOUSTON', state: 'TX', zip: '77001' },
  { mc: 700004, legal: 'FLORES ANTONIO', city: 'SAN ANTONIO', state: 'TX', zip: '78258' },
  { mc: 700005, legal: 'JOHN LEE', city: 'COLUMBUS', state: 'OH', zip: '43085' },
  { mc: 700006, legal: 'ACME HAULING LLC', dba: 'TERRA KLEAN SOLUTIONS, INC.', city: 'AUSTIN', state: 'TX', zip: '78701' },
  { mc: 700007, legal: 'GAZPROMBANK JSC', city: 'NEWARK', state: 'NJ', zip: '07101' },
  { mc: 700008, legal: 'CHULUCANAS 2000 EXPRESS LLC', city: 'RENO', state: 'NV', zip: '89501' },
  { mc: 700009, legal: 'TIMBER TRUCKING LLC', city: 'EUGENE', state: 'OR', zip: '97401' },
];

async function record(mc: number): Promise<CarrierRecord> {
  const lookup = decodeCarrier(String(mc), await redis.hget(keys.carrierBucket(meta.version, carrierBucket(String(mc))), String(mc)));
  if (lookup.kind !== 'found') throw new Error(`MC ${mc} not found`);
  return lookup.record;
}

const watchlistReasons = (r: CarrierRecord) => [...new Set(carrierReasons(r, DEFAULT_RULE_SET, Date.now())
  .filter((reason) => /ofac|sam/.test(reason)))];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ce-matching-it-'));
  const nowMs = Date.now();
  const index = new Map<string, number>(CENSUS_COLUMNS.map((name, i) => [name, i]));
  const census = [csvLine(CENSUS_COLUMNS)];
  const authority: string[] = [];
  PLANTED.forEach((carrier, i) => {
    const row = new Array<string>(CENSUS_COLUMNS.length).fill('');
    const set = (column: string, value: string) => { row[index.get(column)!] = value; };
    set('DOT_NUMBER', String(3_700_000 + i)); set('LEGAL_NAME', carrier.legal); set('DBA_NAME', carrier.dba ?? '');
    set('STATUS_CODE', 'A'); set('MCS150_DATE', `${yyyymmdd(isoDaysFrom(nowMs, -100))} 0000`); set('ADD_DATE', yyyymmdd(isoDaysFrom(nowMs, -2000)));
    set('DOCKET1PREFIX', 'MC'); set('DOCKET1', String(carrier.mc)); set('HM_Ind', 'N'); set('SAFETY_RATING', 'S');
    set('PHY_CITY', carrier.city); set('PHY_STATE', carrier.state); set('PHY_ZIP', carrier.zip); set('PHY_COUNTRY', 'US');
    census.push(csvLine(row));
    authority.push(legacyCarrierLine({ mc: carrier.mc, dot: 3_700_000 + i, common: 'A', bipdRequiredK: 750, bipdOnFileK: 1000, legalName: carrier.legal }));
  });
  const files = { census: join(dir, 'census.csv'), authority: join(dir, 'carrier.txt') };
  await writeFile(files.census, `${census.join('\n')}\n`);
  await writeFile(files.authority, `${authority.join('\n')}\n`);
  const now = new Date(nowMs).toISOString();
  ingestOptions = {
    files: {
      ...files,
      ofacSdn: `${REAL}/ofac/sdn_2021-07/sdn.csv`, ofacAlt: `${REAL}/ofac/sdn_2021-07/alt.csv`, ofacAdd: `${REAL}/ofac/sdn_2021-07/add.csv`,
      ofacCons: `${REAL}/ofac/cons_nonsdn/cons_prim.csv`, ofacConsAlt: `${REAL}/ofac/cons_nonsdn/cons_alt.csv`,
      ofacConsAdd: `${REAL}/ofac/cons_nonsdn/cons_add.csv`, sam: `${REAL}/sam_exclusions/SAM_Exclusions_Public_V2_sample_2023-11.csv`,
    },
    asOf: 'now', sourceAsOf: { authority: now, ofac_sdn: now, ofac_cons: now }, useRedisDnu: false, force: true, nowMs,
  };
  await runIngest(redis, keys, { ...ingestOptions, matchWorker: 'off' });
  meta = (await readSnapshotStatus(redis, keys)).meta as SnapshotMeta;
}, 120_000);

let ingestOptions: IngestOptions;

/** Every stored carrier record of a snapshot, by bucket. */
async function storedRecords(snapshot: SnapshotMeta, under = keys): Promise<Record<string, Record<string, string>>> {
  const buckets: Record<string, Record<string, string>> = {};
  for (const carrier of PLANTED) {
    const key = under.carrierBucket(snapshot.version, carrierBucket(String(carrier.mc)));
    buckets[carrierBucket(String(carrier.mc))] = await redis.hgetall(key);
  }
  return buckets;
}

afterAll(async () => {
  await deleteByPrefix(redis, prefix);
  redis.disconnect();
  await rm(dir, { recursive: true, force: true });
});

describe('ingest with the real lists: verdicts and evidence of planted carriers', () => {
  it('names matched on a worker thread (INGEST_MATCH_WORKER=on) are stored exactly as matched on the ingest\'s own thread', async () => {
    const workerPrefix = `${prefix}w:`;
    const workerKeys = redisKeys(workerPrefix);
    const report = await runIngest(redis, workerKeys, { ...ingestOptions, matchWorker: 'on' });
    expect(report.warnings.filter((warning) => /name matching/.test(warning))).toEqual([]);
    const workerMeta = (await readSnapshotStatus(redis, workerKeys)).meta as SnapshotMeta;
    const own = await storedRecords(meta);
    expect(Object.values(own).some((bucket) => Object.values(bucket).some((encoded) => encoded.includes('4697')))).toBe(true);
    expect(await storedRecords(workerMeta, workerKeys)).toEqual(own);
  }, 60_000);
  it('an SDN entity name with a legal form is a hard stop, with list, id, programs, type, fields and the list as-of', async () => {
    const r = await record(700001);
    expect(watchlistReasons(r)).toEqual(['ofac_sdn_match']);
    expect(r.hits[0]).toMatchObject({
      list: 'ofac_sdn', entry_id: '306', matched_name: 'BANCO NACIONAL DE CUBA', entity_type: 'entity', programs: ['CUBA'],
      exact: true, list_as_of: meta.sources.ofac_sdn!.as_of!.slice(0, 10),
    });
    expect(r.hits[0]!.agreed).toEqual(expect.arrayContaining(['legal_name', 'primary_name']));
    expect(r.hits[0]!.explanation).toMatch(/tokens agree/);
  });
  it('a transliterated SDN name with a trade word is a review', async () => {
    const r = await record(700002);
    expect(watchlistReasons(r)).toEqual(['possible_ofac_match']);
    expect(r.hits[0]).toMatchObject({ entry_id: '4697', exact: false });
  });
  it('a SAM person is a review by name alone, a hard stop when the census address confirms the listed one', async () => {
    expect(watchlistReasons(await record(700003))).toEqual(['possible_sam_exclusion']);
    const confirmed = await record(700004);
    expect(watchlistReasons(confirmed)).toEqual(['sam_exclusion']);
    expect(confirmed.hits.find((hit) => hit.entry_id === 'S4MRRFG44')).toMatchObject({
      entity_type: 'individual', confirmed: true, list_as_of: '2023-11-22',
    });
  });
  it('a common person name listed only abroad raises nothing', async () => {
    expect(watchlistReasons(await record(700005))).toEqual([]);
  });
  it('a DBA naming an excluded SAM firm is a hard stop, with the UEI', async () => {
    const r = await record(700006);
    expect(watchlistReasons(r)).toEqual(['sam_exclusion']);
    expect(r.hits.find((hit) => hit.entry_id === 'S4MR1Y9QG')).toMatchObject({ uei: 'MQRCYCN81E24', carrier_name: 'TERRA KLEAN SOLUTIONS, INC.' });
    expect(r.hits.find((hit) => hit.entry_id === 'S4MR1Y9QG')!.agreed).toEqual(expect.arrayContaining(['dba_name']));
  });
  it('a consolidated non-SDN entity is its own review reason, never a block', async () => {
    const r = await record(700007);
    expect(watchlistReasons(r)).toEqual(['ofac_consolidated_match']);
    expect(r.hits[0]).toMatchObject({ list: 'ofac_cons', entry_id: '17016', programs: ['UKRAINE-EO13662', 'RUSSIA-EO14024'] });
  });
  it('numbers that differ and ordinary words raise nothing', async () => {
    expect(watchlistReasons(await record(700008))).toEqual([]);
    expect(watchlistReasons(await record(700009))).toEqual([]);
  });
});
