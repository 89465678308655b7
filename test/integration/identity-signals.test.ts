// Identity signals over successive real-layout census ingests (the sample census with planted contact data): the
// shared-contact index and its exception list, recent contact/address/name changes at and past their windows, a
// reactivation after a long inactivity, the index removed with its snapshot while the history stays.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CarrierRecord } from '../../src/core/carrier.js';
import { carrierReasons } from '../../src/core/decide.js';
import { buildEvidence } from '../../src/core/evidence.js';
import { DEFAULT_RULE_SET } from '../../src/core/ruleset.js';
import {
  carrierHistory, identityKeys, IdentityRecorder, parseExceptions, readSharedContact, type ContactExceptions, type IdentityKeys,
} from '../../src/identity/index.js';
import { runIngest, type IngestFiles, type IngestReport } from '../../src/ingest/run.js';
import { sampleSourceAsOf, writeSampleFiles } from '../../src/ingest/sample.js';
import { createLogger } from '../../src/log.js';
import { ChangeDetector } from '../../src/monitoring/detector.js';
import { EventStore } from '../../src/monitoring/event-store.js';
import { IdentityEvents } from '../../src/monitoring/identity-events.js';
import { monitoringKeys } from '../../src/monitoring/keys.js';
import { WatchListStore } from '../../src/monitoring/watchlist.js';
import { publishRuleSet } from '../../src/store/rulesets.js';
import { createRedis } from '../../src/redis/connection.js';
import { deleteByPrefix } from '../../src/redis/delete-by-prefix.js';
import { decodeCarrier } from '../../src/store/carrier-codec.js';
import { carrierBucket, redisKeys, type RedisKeys } from '../../src/store/keys.js';
import { keysUnder } from '../helpers/keys-under.js';
import { testRedisTarget } from '../helpers/harness.js';

const DAY = 86_400_000;
const redis = createRedis(testRedisTarget(), 'background');
const prefixes: string[] = [];
let dir = '';

beforeAll(async () => { dir = await mkdtemp(join(tmpdir(), 'ce-identity-signals-')); });
afterEach(async () => { for (const prefix of prefixes.splice(0)) await deleteByPrefix(redis, prefix); });
afterAll(async () => { redis.disconnect(); await rm(dir, { recursive: true, force: true }); });

function fresh(): { prefix: string; keys: RedisKeys; identity: IdentityKeys } {
  const prefix = `test:${Math.random().toString(36).slice(2, 10)}:`;
  prefixes.push(prefix);
  return { prefix, keys: redisKeys(prefix), identity: identityKeys(prefix) };
}

/** Census cells to set, by MC (the sample's plain MC rows: DOCKET1PREFIX MC). */
type Plants = Record<string, Partial<Record<'PHONE' | 'CELL_PHONE' | 'EMAIL_ADDRESS' | 'PHY_STREET' | 'LEGAL_NAME' | 'STATUS_CODE' | 'COMPANY_OFFICER_1', string>>>;

/** The sample files dated for nowMs, with the planted census cells. */
async function sampleFor(name: string, nowMs: number, plants: Plants): Promise<IngestFiles> {
  const files = await writeSampleFiles(join(dir, name), nowMs);
  const [head, ...lines] = (await readFile(files.census, 'utf8')).split('\n').filter((line) => line.length > 0);
  const header = (head ?? '').split(',');
  const col = (column: string) => header.indexOf(column);
  const rows = lines.map((line) => line.split(','));
  for (const [mc, cells] of Object.entries(plants)) {
    const row = rows.find((cells) => cells.length === header.length && cells[col('DOCKET1PREFIX')] === 'MC' && cells[col('DOCKET1')] === mc);
    if (!row) throw new Error(`no plain census row for MC ${mc}`);
    for (const [column, value] of Object.entries(cells)) row[col(column)] = value;
  }
  await writeFile(files.census, `${[header, ...rows].map((cells) => cells.join(',')).join('\n')}\n`);
  return files;
}

async function ingest(keys: RedisKeys, identity: IdentityKeys, files: IngestFiles, nowMs: number, exceptions?: ContactExceptions): Promise<IngestReport> {
  return runIngest(redis, keys, {
    files, asOf: 'now', sourceAsOf: sampleSourceAsOf(nowMs), nowMs, force: true, useRedisDnu: false, graceMs: 0,
    identity: new IdentityRecorder(redis, identity, exceptions ? { exceptions } : {}),
  });
}

async function record(keys: RedisKeys, version: string, mc: string): Promise<CarrierRecord> {
  const lookup = decodeCarrier(mc, await redis.hget(keys.carrierBucket(version, carrierBucket(mc)), mc));
  if (lookup.kind !== 'found') throw new Error(`MC ${mc} not found`);
  return lookup.record;
}

/** The identity reasons of a record at a clock reading (the other reasons are the sample's own). */
const IDENTITY = new Set(['recent_contact_change', 'recent_address_change', 'recent_name_change', 'shared_contact', 'authority_reactivated']);
const identityReasons = (carrier: CarrierRecord, nowMs: number) => carrierReasons(carrier, DEFAULT_RULE_SET, nowMs).filter((reason) => IDENTITY.has(reason));

// Clean filler carriers of the sample (3000xx): plain MC rows, no reason of their own.
const SHARED_FIVE = ['300010', '300011', '300012', '300013', '300014'];
const SHARED_FOUR = ['300020', '300021', '300022', '300023'];
const PHONE = '(602) 555-0142';
const EMAIL = 'Dispatch@Shared-Desk.example';

describe('identity signals', () => {
  it('shared_contact: a phone shared by 5 carriers fires (4 unrelated > 3); an email shared by 4 does not; the index counts both', async () => {
    const { keys, identity } = fresh();
    const nowMs = Date.now();
    const plants: Plants = {};
    for (const mc of SHARED_FIVE) plants[mc] = { PHONE };
    // A cell phone equal to another carrier's phone is the same number.
    plants['300014'] = { CELL_PHONE: PHONE };
    for (const mc of SHARED_FOUR) plants[mc] = { EMAIL_ADDRESS: EMAIL };
    const report = await ingest(keys, identity, await sampleFor('shared', nowMs, plants), nowMs);

    for (const mc of SHARED_FIVE) {
      const carrier = await record(keys, report.version, mc);
      expect(identityReasons(carrier, nowMs), mc).toEqual(['shared_contact']);
      expect(carrier.identity?.shared).toEqual([{ field: 'phone', value: '6025550142', unrelated: 4, dots: expect.any(Array) }]);
      expect(carrier.identity?.shared?.[0]?.dots).toHaveLength(4);
      expect(carrier.identity?.shared?.[0]?.dots).not.toContain(carrier.dot);
    }
    for (const mc of SHARED_FOUR) {
      const carrier = await record(keys, report.version, mc);
      expect(identityReasons(carrier, nowMs), mc).toEqual([]);
      expect(carrier.identity?.shared).toEqual([{ field: 'email', value: 'dispatch@shared-desk.example', unrelated: 3, dots: expect.any(Array) }]);
      // A stricter rule set (shared_contact_max 2) fires on the same record.
      const strict = { ...DEFAULT_RULE_SET, identity: { ...DEFAULT_RULE_SET.identity, shared_contact_max: 2 } };
      expect(carrierReasons(carrier, strict, nowMs)).toContain('shared_contact');
    }
    expect(await readSharedContact(redis, keys, report.version, 'phone', '6025550142')).toMatchObject({ carriers: 5, exempt: false });
    expect(await readSharedContact(redis, keys, report.version, 'email', 'dispatch@shared-desk.example')).toMatchObject({ carriers: 4 });
    expect(await readSharedContact(redis, keys, report.version, 'phone', '6025550143')).toBeNull();
    // The evidence names the other carriers by DOT.
    const carrier = await record(keys, report.version, '300010');
    const evidence = buildEvidence({
      reasons: ['shared_contact'], lookup: { kind: 'found', record: carrier }, rules: DEFAULT_RULE_SET, snapshot: null,
      onDoNotUseList: false, maxDataAgeSeconds: 1, nowMs,
    });
    expect(evidence.reasons[0]).toMatchObject({ reason: 'shared_contact', record_id: carrier.dot,
      facts: { field: 'phone', value: '6025550142', unrelated_carriers: 4 }, rule: { shared_contact_max: 3 } });
  });

  it('the exception list: an exempt phone never counts; a DOT group\'s members are not unrelated to each other', async () => {
    const { keys, identity } = fresh();
    const nowMs = Date.now();
    const plants: Plants = {};
    for (const mc of SHARED_FIVE) plants[mc] = { PHONE };
    const files = await sampleFor('exceptions', nowMs, plants);
    const exempt = await ingest(keys, identity, files, nowMs, parseExceptions(JSON.stringify({ phones: [{ value: '+1 602 555 0142', note: 'registered agent' }] })));
    for (const mc of SHARED_FIVE) expect(identityReasons(await record(keys, exempt.version, mc), nowMs), mc).toEqual([]);
    expect(await readSharedContact(redis, keys, exempt.version, 'phone', '6025550142')).toMatchObject({ carriers: 5, exempt: true });

    // Two of the five are one company's subsidiaries: each of those has 3 unrelated carriers (not > 3), the others 4.
    const dots = await Promise.all(SHARED_FIVE.map(async (mc) => Number((await record(keys, exempt.version, mc)).dot)));
    const grouped = await ingest(keys, identity, files, nowMs + 1000, parseExceptions(JSON.stringify({ dot_groups: [{ name: 'Sample Holdings', dots: dots.slice(0, 2) }] })));
    const reasons = await Promise.all(SHARED_FIVE.map(async (mc) => identityReasons(await record(keys, grouped.version, mc), nowMs)));
    expect(reasons).toEqual([[], [], ['shared_contact'], ['shared_contact'], ['shared_contact']]);
    expect(() => parseExceptions(JSON.stringify({ phones: ['12'], addresses: ['1 MAIN ST'] }))).toThrow(/phones\.0.*addresses\.0/);
  });

  it('recent changes over three ingests fire within their 30-day window and not a day past it; the history outlives retirement, the old snapshot index does not', async () => {
    const { prefix, keys, identity } = fresh();
    const t1 = Date.now() - 200 * DAY;
    const t2 = Date.now() - DAY;
    const t3 = Date.now();
    // 300030 is inactive at the first ingest (its USDOT record), active again 199 days later.
    const first = await ingest(keys, identity, await sampleFor('t1', t1, { 300030: { STATUS_CODE: 'I' }, 300031: { EMAIL_ADDRESS: 'ops@first.example' } }), t1);
    expect(first.identity).toEqual({ changes: 0, carriers: 0 });
    expect(identityReasons(await record(keys, first.version, '300031'), t1)).toEqual([]);

    const second = await ingest(keys, identity, await sampleFor('t2', t2, {
      300031: { EMAIL_ADDRESS: 'ops@taken-over.example' }, 300032: { PHY_STREET: '9 DROP BOX RD' }, 300033: { LEGAL_NAME: 'FRESH PAINT LOGISTICS LLC' },
    }), t2);
    expect(second.identity).toEqual({ changes: 3, carriers: 3 });
    const changed = await record(keys, second.version, '300031');
    expect(changed.identity?.contact).toEqual({ field: 'email', old: 'ops@first.example', new: 'ops@taken-over.example', first_seen_on: new Date(t2).toISOString().slice(0, 10) });
    // Window 30 days from the day first seen: day 30 fires, day 31 is clean.
    expect(identityReasons(changed, t2)).toEqual(['recent_contact_change']);
    expect(identityReasons(changed, t2 + 30 * DAY)).toEqual(['recent_contact_change']);
    expect(identityReasons(changed, t2 + 31 * DAY)).toEqual([]);
    expect(identityReasons(await record(keys, second.version, '300032'), t2)).toEqual(['recent_address_change']);
    expect(identityReasons(await record(keys, second.version, '300032'), t2 + 31 * DAY)).toEqual([]);
    expect(identityReasons(await record(keys, second.version, '300033'), t2)).toEqual(['recent_name_change']);
    // 300030: inactive for 199 days (>= 180) and active again now.
    const back = await record(keys, second.version, '300030');
    expect(back.identity?.reactivated).toEqual({ on: new Date(t2).toISOString().slice(0, 10), after: 'inactivity', since: new Date(t1).toISOString().slice(0, 10) });
    expect(identityReasons(back, t2)).toEqual(['authority_reactivated']);
    expect(identityReasons(back, t2 + 91 * DAY)).toEqual([]);

    // Third ingest: the taken-over carrier's phone changes too; the earlier signals ride on from the current-identity line.
    const third = await ingest(keys, identity, await sampleFor('t3', t3, {
      300031: { EMAIL_ADDRESS: 'ops@taken-over.example', PHONE: '4805550111' }, 300032: { PHY_STREET: '9 DROP BOX RD' },
      300033: { LEGAL_NAME: 'FRESH PAINT LOGISTICS LLC' },
    }), t3);
    expect(third.identity).toEqual({ changes: 1, carriers: 1 });
    expect((await record(keys, third.version, '300031')).identity?.contact).toMatchObject({ field: 'phone', old: '', new: '4805550111' });
    expect(identityReasons(await record(keys, third.version, '300032'), t3)).toEqual(['recent_address_change']);
    expect(identityReasons(await record(keys, third.version, '300030'), t3)).toEqual(['authority_reactivated']);
    // An unchanged carrier gets no signal at all.
    expect((await record(keys, third.version, '300040')).identity).toBeUndefined();

    // The earlier snapshots (and their shared-contact index) are gone; the history is not.
    expect([...second.removedVersions, ...third.removedVersions]).toEqual(expect.arrayContaining([first.version, second.version]));
    expect(await keysUnder(redis, `${prefix}snapshot:${first.version}`)).toEqual([]);
    const history = await carrierHistory({ redis, keys, identityKeys: identity }, '300031');
    expect(history?.carriers[0]?.changes.map((change) => [change.field, change.old, change.new, change.first_seen_on])).toEqual([
      ['email', 'ops@first.example', 'ops@taken-over.example', new Date(t2).toISOString().slice(0, 10)],
      ['phone', '', '4805550111', new Date(t3).toISOString().slice(0, 10)],
    ]);
  });

  it('monitoring: a watched carrier gets identity.changed with before and after, also when its verdict stays the same', async () => {
    const { prefix, keys, identity } = fresh();
    const mkeys = monitoringKeys(prefix);
    const watch = new WatchListStore(redis, mkeys);
    const events = new EventStore(redis, mkeys, 30 * DAY);
    const nowMs = Date.now();
    const first = await ingest(keys, identity, await sampleFor('mon1', nowMs, { 300050: { COMPANY_OFFICER_1: 'JANE ROE' }, 300052: { PHONE: '6025550170' } }), nowMs);
    const state = { snapshot: first.meta, ruleset: await publishRuleSet(redis, keys, DEFAULT_RULE_SET, nowMs), redisUp: true };
    const detector = new ChangeDetector({
      redis, keys, mkeys, state, watch, events, recorder: null, maxDataAgeSeconds: 30 * 86_400, log: createLogger('silent', 'test'),
      now: () => nowMs + 2000, identity: new IdentityEvents(redis, prefix, mkeys, watch, events),
    });
    await watch.add('acme', [{ mc: '300050', ref: null }, { mc: '300052', ref: null }], 100);
    await detector.tick();
    expect(await events.after('acme', null, 100)).toEqual([]);

    const second = await ingest(keys, identity, await sampleFor('mon2', nowMs + 1000, {
      300050: { COMPANY_OFFICER_1: 'JOHN DOE' }, 300051: { EMAIL_ADDRESS: 'unwatched@x.example' }, 300052: { PHONE: '4805550177' },
    }), nowMs + 1000);
    expect(second.identity?.carriers).toBe(3);
    state.snapshot = second.meta;
    await detector.tick();
    const feed = (await events.after('acme', null, 100)).map((entry) => entry.event);
    const identityEvents = feed.filter((event) => event.type === 'identity.changed');
    expect(identityEvents.map((event) => ({ mc: event.mc, changes: event.changes?.map(({ field, kind, before, after, snapshot }) => ({ field, kind, before, after, snapshot })) })))
      .toEqual([
        // Officers are kept as a fingerprint only: their first change has no before value (docs/identity.md).
        { mc: '300050', changes: [{ field: 'officers', kind: 'officers', before: null, after: 'JOHN DOE', snapshot: second.version }] },
        { mc: '300052', changes: [{ field: 'phone', kind: 'contact', before: '6025550170', after: '4805550177', snapshot: second.version }] },
      ]);
    // The officer change leaves the verdict as it was; the phone change adds recent_contact_change.
    const verdicts = feed.filter((event) => event.type === 'verdict.changed');
    expect(verdicts.map((event) => [event.mc, event.reasons_added.map((added) => added.reason)])).toEqual([['300052', ['recent_contact_change']]]);
    // Nothing twice: the cursor moved.
    await detector.tick();
    expect((await events.after('acme', null, 100)).length).toBe(feed.length);
  });
});
