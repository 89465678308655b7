// The change detector against a real Redis (own prefix) with a clock and served state the test controls:
// time-based changes from the schedule, a rule set publish, and screening-degraded / restored events.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SnapshotMeta } from '../../src/core/carrier.js';
import { DEFAULT_RULE_SET, type PublishedRuleSet } from '../../src/core/ruleset.js';
import { createLogger } from '../../src/log.js';
import { ChangeDetector } from '../../src/monitoring/detector.js';
import { EventStore } from '../../src/monitoring/event-store.js';
import type { MonitoringEvent } from '../../src/monitoring/events-model.js';
import { monitoringKeys, shardOf } from '../../src/monitoring/keys.js';
import { WatchListStore } from '../../src/monitoring/watchlist.js';
import { createRedis } from '../../src/redis/connection.js';
import { deleteByPrefix } from '../../src/redis/delete-by-prefix.js';
import { redisKeys } from '../../src/store/keys.js';
import { newSnapshotVersion, SnapshotWriter } from '../../src/store/snapshot-writer.js';
import { applyDoNotUse } from '../../src/store/do-not-use.js';
import { cleanCarrier, randomPrefix, testRedisTarget } from '../helpers/harness.js';

const DAY = 86_400_000;
const redis = createRedis(testRedisTarget(), 'background');
const prefix = randomPrefix();
const keys = redisKeys(prefix);
const mkeys = monitoringKeys(prefix);
const watch = new WatchListStore(redis, mkeys);
const events = new EventStore(redis, mkeys, 30 * DAY);
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const start = Date.UTC(2026, 10, 2, 12);
let clock = start;
const state: { snapshot: SnapshotMeta | null; ruleset: PublishedRuleSet | null; redisUp: boolean } = { snapshot: null, ruleset: null, redisUp: true };
const detector = new ChangeDetector({
  redis, keys, mkeys, state, watch, events, recorder: null, maxDataAgeSeconds: 30 * 86_400, log: createLogger('silent', 'test'), now: () => clock,
});

async function feed(account: string): Promise<MonitoringEvent[]> {
  return (await events.after(account, null, 1000)).map((entry) => entry.event);
}

beforeAll(async () => {
  const writer = new SnapshotWriter(redis, keys, newSnapshotVersion(start));
  await writer.begin(start);
  await writer.put('700', cleanCarrier('700', { authority: { status: 'active', granted_on: '2015-03-01', revocation_pending_on: day(start + 3 * DAY), revoked_on: null } }));
  await writer.put('701', cleanCarrier('701', { insurance: { bipd_on_file_usd: 800_000, bipd_required_usd: 750_000, cancellation_effective_on: null } }));
  const asOf = new Date(start).toISOString();
  const source = { present: true, as_of: asOf, rows: 2 };
  const meta = { data_as_of: asOf, created_at: asOf, carrier_count: 2, sources: { census: source, authority: source, insurance: source, oos: source, ofac_sdn: source, sam: source } };
  await writer.commit(meta);
  state.snapshot = { version: writer.version, ...meta };
  state.ruleset = { version: 1, published_at: asOf, rules: DEFAULT_RULE_SET };
  await watch.add('acme', [{ mc: '700', ref: null }, { mc: '701', ref: null }], 100);
  await watch.add('globex', [{ mc: '701', ref: null }], 100);
});

afterAll(async () => {
  await deleteByPrefix(redis, prefix);
  redis.disconnect();
});

describe('change detector', () => {
  it('first observes silently, then schedules the next time-based change', async () => {
    await detector.tick();
    expect(await feed('acme')).toEqual([]);
    expect(Number(await redis.zscore(mkeys.schedule(shardOf('700')), '700'))).toBe(Date.parse(day(start + 3 * DAY)));
  });

  it('a pending revocation taking effect is an event when its day comes (trigger time), and only then', async () => {
    clock = start + DAY;
    await detector.tick();
    expect(await feed('acme')).toEqual([]);
    clock = start + 3 * DAY + 60_000;
    const stats = await detector.tick();
    expect(stats.decided).toBe(1);
    const [event] = await feed('acme');
    expect(event).toMatchObject({
      type: 'verdict.changed', trigger: 'time', mc: '700', before: { reasons: ['authority_revocation_pending'], tier: 'conditional' },
      after: { eligible: false, tier: 'blocked', reasons: ['authority_revoked'] }, occurred_at: new Date(Date.parse(day(start + 3 * DAY))).toISOString(),
    });
    expect(event?.reasons_removed.map((change) => change.reason)).toEqual(['authority_revocation_pending']);
    expect(await feed('globex')).toEqual([]);
  });

  it('a rule set publish re-decides every watched carrier once and fans out to each watching account', async () => {
    state.ruleset = { version: 2, published_at: new Date(clock).toISOString(), rules: { ...DEFAULT_RULE_SET, insurance: { ...DEFAULT_RULE_SET.insurance, min_bipd_general_usd: 900_000 } } };
    const stats = await detector.tick();
    expect(stats).toMatchObject({ decided: 2, changed: 1, events: 2 });
    for (const account of ['acme', 'globex']) {
      const last = (await feed(account)).at(-1);
      expect(last).toMatchObject({ trigger: 'ruleset', mc: '701', ruleset_version: 2, after: { reasons: ['insurance_below_minimum'] } });
    }
  });

  it('a stale source gives one screening.degraded per account, then screening.restored', async () => {
    clock = start + 31 * DAY;
    await detector.tick();
    await detector.tick();
    const degraded = (await feed('globex')).filter((event) => event.type === 'screening.degraded');
    expect(degraded).toHaveLength(1);
    expect(degraded[0]?.degraded_reasons).toEqual(['data_stale']);
    clock = start + 3 * DAY + 120_000;
    await detector.tick();
    expect((await feed('acme')).at(-1)?.type).toBe('screening.restored');
  });

  it('a do-not-use entry that expires is a time-based change when it lapses', async () => {
    const expires = clock + 3600_000;
    await applyDoNotUse(redis, keys, [{ op: 'set', mc: '701', entry: JSON.stringify({ reason: 'dispute', added_at: new Date(clock).toISOString(), expires_at: new Date(expires).toISOString() }) }]);
    await detector.tick();
    expect((await feed('globex')).at(-1)).toMatchObject({ trigger: 'do_not_use', after: { reasons: ['do_not_use', 'insurance_below_minimum'] } });
    expect(Number(await redis.zscore(mkeys.schedule(shardOf('701')), '701'))).toBe(expires);
    clock = expires + 1000;
    await detector.tick();
    const last = (await feed('globex')).at(-1);
    expect(last).toMatchObject({ trigger: 'time', after: { reasons: ['insurance_below_minimum'] } });
    expect(last?.reasons_removed.map((change) => change.reason)).toEqual(['do_not_use']);
  });
});
