// Monitoring scale bench (issue 12 targets): N watched (account, carrier) pairs; change detection plus fan-out
// (decision records + events) after a snapshot flip; webhook delivery rate to a local receiver.
//
//   node --import tsx bench/monitoring.ts [--accounts 100] [--per-account 10000] [--pool 250000] [--changed 0.05] [--events 20000]
//     [--policy-accounts 0]
//
// --policy-accounts N gives the first N accounts a policy ($1.5M minimum BIPD, so the $1M carriers become reviews for
// them): they are decided on their own, with own baselines. Each tick also reports the Redis commands it sent
// (INFO total_commands_processed), a count the machine's load does not move.
//
// Runs against its own private redis-server on a free port (needs redis-server on PATH), so nothing else on the
// machine is touched. Snapshot versions hold the watched pool only: detection reads watched carriers' records,
// so the other carriers of a 1M-carrier snapshot cost nothing here (the ingest itself is bench/ingest-bench.ts).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEFAULT_RULE_SET } from '../src/core/ruleset.js';
import type { CarrierRecord, SnapshotMeta } from '../src/core/carrier.js';
import { DecisionRecorder } from '../src/decisions/recorder.js';
import { createLogger } from '../src/log.js';
import { WebhookDeliverer } from '../src/monitoring/delivery.js';
import { ChangeDetector } from '../src/monitoring/detector.js';
import { EventStore } from '../src/monitoring/event-store.js';
import { screeningEvent, type MonitoringEvent } from '../src/monitoring/events-model.js';
import { monitoringKeys } from '../src/monitoring/keys.js';
import { WebhookSender } from '../src/monitoring/sender.js';
import { WatchListStore } from '../src/monitoring/watchlist.js';
import { WebhookStore } from '../src/monitoring/webhook-store.js';
import { createRedis } from '../src/redis/connection.js';
import { redisKeys } from '../src/store/keys.js';
import { newSnapshotVersion, SnapshotWriter } from '../src/store/snapshot-writer.js';
import { PrivateRedis } from '../test/helpers/private-redis.js';

function arg(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  return index > 0 ? Number(process.argv[index + 1]) : fallback;
}

const ACCOUNTS = arg('accounts', 100);
const PER_ACCOUNT = arg('per-account', 10_000);
const POOL = arg('pool', 250_000);
const CHANGED = arg('changed', 0.05);
const EVENTS = arg('events', 20_000);
const POLICY_ACCOUNTS = arg('policy-accounts', 0);
const log = createLogger('silent', 'bench');
const secs = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

function carrier(mc: number, changed: boolean): CarrierRecord {
  return {
    mc: String(mc), dot: String(3_000_000 + mc), legal_name: `CARRIER ${mc} LLC`, dba_name: null, usdot_status: 'A',
    authority: { status: 'active', granted_on: '2015-03-01', revocation_pending_on: null, revoked_on: null },
    insurance: { bipd_on_file_usd: changed ? 300_000 : 1_000_000, bipd_required_usd: 750_000, cancellation_effective_on: null },
    hazmat: false, safety_rating: 'S', mcs150_date: new Date(Date.now() - 200 * 86_400_000).toISOString().slice(0, 10), oos_order: null, hits: [],
  };
}

const server = await PrivateRedis.start();
const redis = createRedis(server.url, 'background');
const prefix = 'bench:';
const keys = redisKeys(prefix);
const mkeys = monitoringKeys(prefix);
try {
  const now = Date.now();
  const asOf = new Date(now).toISOString();
  const source = { present: true, as_of: asOf, rows: POOL };
  const metaBase = { data_as_of: asOf, created_at: asOf, carrier_count: POOL, sources: { census: source, authority: source, insurance: source, oos: source, ofac_sdn: source, sam: source } };
  const writeVersion = async (changedEvery: number): Promise<SnapshotMeta> => {
    const writer = new SnapshotWriter(redis, keys, newSnapshotVersion(Date.now()));
    await writer.begin(Date.now());
    const puts: Promise<void>[] = [];
    for (let mc = 1; mc <= POOL; mc++) {
      puts.push(writer.put(String(mc), carrier(mc, changedEvery > 0 && mc % changedEvery === 0)));
      if (puts.length >= 5000) await Promise.all(puts.splice(0));
    }
    await Promise.all(puts);
    await writer.commit(metaBase);
    return { version: writer.version, ...metaBase };
  };
  let t0 = performance.now();
  const v1 = await writeVersion(0);
  console.log(`snapshot v1 (${POOL} carriers) written in ${secs(performance.now() - t0)}`);

  const watch = new WatchListStore(redis, mkeys);
  t0 = performance.now();
  const stride = Math.max(1, Math.floor(POOL / ACCOUNTS));
  for (let account = 0; account < ACCOUNTS; account++) {
    for (let start = 0; start < PER_ACCOUNT; start += 5000) {
      const items = Array.from({ length: Math.min(5000, PER_ACCOUNT - start) }, (_, j) => ({ mc: String(((account * stride + start + j) % POOL) + 1), ref: null }));
      await watch.add(`acct${account}`, items, 10_000_000);
    }
  }
  const pairs = ACCOUNTS * PER_ACCOUNT;
  console.log(`${pairs} watched pairs over ${Math.min(POOL, pairs)} carriers added in ${secs(performance.now() - t0)}`);

  const state = { snapshot: v1 as SnapshotMeta | null, ruleset: { version: 1, published_at: asOf, rules: DEFAULT_RULE_SET }, redisUp: true };
  const events = new EventStore(redis, mkeys, 30 * 86_400_000);
  const recorder = new DecisionRecorder(redis, keys, { retentionSeconds: 30 * 86_400, maxDataAgeSeconds: 172_800 });
  // Policies as the detector's port sees them: versions per account and the rule set each decides with.
  const strict = { ...state.ruleset, rules: { ...DEFAULT_RULE_SET, insurance: { ...DEFAULT_RULE_SET.insurance, min_bipd_general_usd: 1_500_000 } } };
  const policies = {
    epoch: async () => (POLICY_ACCOUNTS > 0 ? '1' : null),
    versions: async () => new Map(Array.from({ length: POLICY_ACCOUNTS }, (_, account) => [`acct${account}`, 1] as const)),
    rulesetFor: async () => strict,
  };
  const detector = new ChangeDetector({ redis, keys, mkeys, state, watch, events, recorder, maxDataAgeSeconds: 172_800, log, accounts: { policies } });
  const commands = async () => Number(/total_commands_processed:(\d+)/.exec(await redis.info('stats'))?.[1] ?? 0);
  let sent = await commands();
  t0 = performance.now();
  await detector.tick();
  console.log(`first observation (baselines for every watched carrier): ${secs(performance.now() - t0)}, ${await commands() - sent - 1} Redis commands`);

  const v2 = await writeVersion(Math.round(1 / CHANGED));
  state.snapshot = v2;
  sent = await commands();
  t0 = performance.now();
  const stats = await detector.tick();
  const detectMs = performance.now() - t0;
  const flipCommands = await commands() - sent - 1;
  let own = 0;
  for (let shard = 0; shard < 64; shard++) own += await redis.hlen(mkeys.accountBaseline(shard));
  console.log(`snapshot flip: decided ${stats.decided} changed carriers, ${stats.changed} verdict changes, ${stats.events} events `
    + `(each with its decision record) in ${secs(detectMs)}  [target < 30 s]; record diff ${secs(stats.diffMs ?? 0)}, fan-out ${secs(stats.fanOutMs ?? 0)}; `
    + `${flipCommands} Redis commands; ${own} own (per-account) baselines`);

  // Delivery: one endpoint, EVENTS events of distinct carriers, a local receiver answering 200 at once.
  let received = 0;
  const receiver = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      received += 1;
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const store = new WebhookStore(redis, mkeys);
  const batch: Array<{ account: string; event: MonitoringEvent }> = [];
  for (let i = 0; i < EVENTS; i++) {
    const event = screeningEvent('screening.degraded', [], { id: `bench-${i}`, observedMs: now, rulesetVersion: 1, dataAsOf: asOf });
    batch.push({ account: 'delivery', event: { ...event, type: 'verdict.changed', mc: String(i % 5000) } });
  }
  for (let start = 0; start < batch.length; start += 5000) await events.append(batch.slice(start, start + 5000));
  await store.create('delivery', { url, event_types: [], description: null }, '0-0');
  const sender = new WebhookSender(true, 10_000);
  const deliverer = new WebhookDeliverer({
    redis, mkeys, store, events, sender, log, retryWindowMs: 3 * 86_400_000, retryBaseMs: 5000, leaseMs: 30_000, pollMs: 20, concurrency: 32,
  });
  t0 = performance.now();
  deliverer.start();
  while (received < EVENTS) await new Promise((resolve) => setTimeout(resolve, 20));
  const deliverMs = performance.now() - t0;
  await deliverer.stop(1000);
  sender.close();
  receiver.close();
  console.log(`delivery: ${EVENTS} signed webhooks to a local receiver in ${secs(deliverMs)} = ${Math.round(EVENTS / (deliverMs / 1000))} events/s  [target ≥ 1000/s]`);
  const info = await redis.info('memory');
  console.log(`redis used_memory: ${/used_memory_human:(\S+)/.exec(info)?.[1]}`);
} finally {
  redis.disconnect();
  await server.kill();
}
