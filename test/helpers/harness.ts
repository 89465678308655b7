// Integration-test harness: starts the real service (the HTTP_ENGINE under test on a free port, real Redis) under a random key
// prefix, plus helpers to issue keys, publish rule sets and write snapshots. Nothing here mocks Redis.
import { randomBytes } from 'node:crypto';
import { startApp, type RunningApp } from '../../src/app.js';
import { KeyAdmin, type KeyGrant } from '../../src/auth/key-store.js';
import { loadConfig, type Config } from '../../src/config.js';
import type { CarrierRecord, SnapshotMeta } from '../../src/core/carrier.js';
import { DEFAULT_RULE_SET, type RuleSet } from '../../src/core/ruleset.js';
import type { HttpEngine } from '../../src/http/types.js';
import { createLogger, type Logger } from '../../src/log.js';
import { createRedis, redisTarget, type RedisClient, type RedisTarget } from '../../src/redis/connection.js';
import { deleteByPrefix } from '../../src/redis/delete-by-prefix.js';
import { redisKeys, type RedisKeys } from '../../src/store/keys.js';
import { publishRuleSet } from '../../src/store/rulesets.js';
import { acquireIngestLock, newSnapshotVersion, SnapshotWriter } from '../../src/store/snapshot-writer.js';

export function randomPrefix(): string {
  return `test:${randomBytes(5).toString('hex')}:`;
}

/**
 * The Redis the suite runs against, from the environment: REDIS_MODE=cluster with REDIS_CLUSTER_NODES (the
 * `cluster` vitest project sets these for its private cluster, test/helpers/cluster-setup.ts), else REDIS_URL.
 */
export function testRedisTarget(): RedisTarget {
  return redisTarget(loadConfig({
    REDIS_MODE: process.env.REDIS_MODE, REDIS_URL: process.env.REDIS_URL, REDIS_CLUSTER_NODES: process.env.REDIS_CLUSTER_NODES,
    REDIS_SENTINELS: process.env.REDIS_SENTINELS, REDIS_SENTINEL_NAME: process.env.REDIS_SENTINEL_NAME,
  }));
}

/**
 * A client with the service's request-path profile (no offline queue, short command timeout unless given), returned
 * once connected: without an offline queue a command sent before that fails at once.
 */
export async function connectedRequestPathClient(commandTimeoutMs?: number): Promise<RedisClient> {
  const client = createRedis(testRedisTarget(), 'request-path', commandTimeoutMs);
  if (client.status !== 'ready') await new Promise((resolve) => client.once('ready', resolve));
  return client;
}

/** The suite's Redis settings from the environment, unless the test names a Redis of its own (REDIS_URL). */
function inheritedRedisEnv(env: Record<string, string>): Record<string, string | undefined> {
  if (env.REDIS_URL !== undefined || env.REDIS_MODE !== undefined) return {};
  return {
    REDIS_MODE: process.env.REDIS_MODE, REDIS_URL: process.env.REDIS_URL, REDIS_CLUSTER_NODES: process.env.REDIS_CLUSTER_NODES,
    REDIS_SENTINELS: process.env.REDIS_SENTINELS, REDIS_SENTINEL_NAME: process.env.REDIS_SENTINEL_NAME,
  };
}

export interface TestApp {
  app: RunningApp;
  baseUrl: string;
  config: Config;
  /** Patient client for arranging state (not the service's own connection). */
  redis: RedisClient;
  keys: RedisKeys;
  createKey(options?: Partial<Omit<KeyGrant, 'label'>>): Promise<{ key: string; id: string }>;
  publishRules(rules?: RuleSet): Promise<number>;
  /** Writes and makes current a snapshot; `ambiguous` maps MC numbers to the DOT numbers they resolve to. */
  writeSnapshot(carriers: CarrierRecord[], meta?: Partial<Omit<SnapshotMeta, 'version'>>, ambiguous?: Record<string, string[]>): Promise<string>;
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<Response>;
  get(path: string, headers?: Record<string, string>): Promise<Response>;
  stop(): Promise<void>;
}

/**
 * The HTTP engine the suite runs on: HTTP_ENGINE from the environment (`HTTP_ENGINE=node npx vitest run …` runs
 * the HTTP suites on node:http), else the default, uws.
 */
export function testEngine(): HttpEngine {
  return process.env.HTTP_ENGINE === 'node' ? 'node' : 'uws';
}

/** `log`: the service's logger (default: one at the config's LOG_LEVEL, silent unless a test sets it). */
export async function startTestApp(env: Record<string, string> = {}, options: { log?: Logger; now?: () => number } = {}): Promise<TestApp> {
  const config = loadConfig({
    ...inheritedRedisEnv(env), REDIS_PREFIX: randomPrefix(), PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', STATE_POLL_MS: '100', HTTP_ENGINE: testEngine(), ...env,
  });
  const redis = createRedis(redisTarget(config), 'background');
  const keys = redisKeys(config.REDIS_PREFIX);
  const app = await startApp(config, options.log ?? createLogger(config.LOG_LEVEL, 'test'), options.now);
  const baseUrl = `http://127.0.0.1:${app.http?.port ?? 0}`;
  return {
    app, baseUrl, config, redis, keys,
    async createKey(options = {}) {
      const { key, record } = await new KeyAdmin(redis, keys).issue({
        ...options, account: options.account ?? 'acme', label: 'test', scopes: options.scopes ?? ['eligibility', 'batch'],
        rate_per_minute: options.rate_per_minute ?? 100_000,
      });
      // Saving moved keys:epoch, and the poll that sees it empties the service's key cache. Wait for that poll, so
      // it cannot land after a test's first check and silently drop the key record the test just had cached (a
      // test that then breaks Redis got degraded answers with no budget drawn: fault-redis' one flake).
      await app.parts.state.poll();
      return { key, id: record.id };
    },
    async publishRules(rules = DEFAULT_RULE_SET) {
      return (await publishRuleSet(redis, keys, rules)).version;
    },
    async writeSnapshot(carriers, meta = {}, ambiguous = {}) {
      // Under the ingest lock, committed with its fence, as an ingest writes: the worker role's snapshot sweeper
      // removes a version being written while no ingest holds the lock (an orphan).
      const release = await acquireIngestLock(redis, keys);
      let version: string;
      let dataAsOf: string;
      try {
        const writer = new SnapshotWriter(redis, keys, newSnapshotVersion(Date.now()));
        await writer.begin(Date.now());
        for (const carrier of carriers) await writer.put(carrier.mc, carrier);
        for (const [mc, dots] of Object.entries(ambiguous)) await writer.put(mc, { ambiguous: dots });
        const now = new Date().toISOString();
        const committed = {
          data_as_of: now, created_at: now, carrier_count: carriers.length,
          sources: {
            census: { present: true, as_of: now, rows: carriers.length }, authority: { present: true, as_of: now, rows: carriers.length },
            // Every source the default rule set requires, so a test snapshot is fully screened unless a test says otherwise.
            insurance: { present: true, as_of: now, rows: carriers.length }, oos: { present: true, as_of: now, rows: 1 },
            ofac_sdn: { present: true, as_of: now, rows: 1 }, sam: { present: true, as_of: now, rows: 1 },
          },
          ...meta,
        };
        await writer.commit(committed, Date.now(), undefined, undefined, release.token);
        version = writer.version;
        dataAsOf = committed.data_as_of;
      } finally {
        await release();
      }
      await servesSnapshot(baseUrl, app.http !== undefined, dataAsOf);
      return version;
    },
    post: (path, body, headers = {}) => fetch(`${baseUrl}${path}`, {
      method: 'POST', headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    }),
    get: (path, headers = {}) => fetch(`${baseUrl}${path}`, { headers }),
    async stop() {
      await app.stop();
      await deleteByPrefix(redis, config.REDIS_PREFIX);
      redis.disconnect();
    },
  };
}

/**
 * Waits (≤ 3 s, without failing) until the service's state poll has seen the new snapshot with Redis up. A test
 * that fires at once would otherwise race the poll: its first requests would get degraded verdicts and draw from
 * the in-memory stand-in budget (measured: 5 of 40 draws in batch-pacing).
 */
async function servesSnapshot(baseUrl: string, listening: boolean, dataAsOf: string): Promise<void> {
  if (!listening) return;
  const deadline = Date.now() + 3000;
  while (Date.now() < deadline) {
    const health = await fetch(`${baseUrl}/v1/health`).then((r) => r.json() as Promise<{ redis?: string; data_as_of?: string | null }>).catch(() => null);
    if (health?.redis === 'up' && health.data_as_of === dataAsOf) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A carrier that passes every rule of the default rule set; override fields to trigger reasons. */
export function cleanCarrier(mc: string, overrides: Partial<CarrierRecord> = {}): CarrierRecord {
  const recent = new Date(Date.now() - 200 * 86_400_000).toISOString().slice(0, 10);
  return {
    mc, dot: String(1_000_000 + Number(mc)), legal_name: `CARRIER ${mc} LLC`, dba_name: null, usdot_status: 'A',
    authority: { status: 'active', granted_on: '2015-03-01', revocation_pending_on: null, revoked_on: null },
    insurance: { bipd_on_file_usd: 1_000_000, bipd_required_usd: 750_000, cancellation_effective_on: null },
    hazmat: false, safety_rating: 'S', mcs150_date: recent, oos_order: null, hits: [],
    ...overrides,
  };
}

export async function waitFor<T>(probe: () => Promise<T>, accept: (value: T) => boolean, timeoutMs: number): Promise<{ value: T; elapsedMs: number }> {
  const started = Date.now();
  for (;;) {
    const value = await probe();
    if (accept(value)) return { value, elapsedMs: Date.now() - started };
    if (Date.now() - started > timeoutMs) throw new Error(`condition not met within ${timeoutMs} ms; last value ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
