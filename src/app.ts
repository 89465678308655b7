// Composition root: builds every part from the config and wires them; main.ts and the tests both start the
// service through here, so tests exercise exactly what production runs.
import { Authenticator } from './auth/authenticate.js';
import { CallGate } from './auth/call-gate.js';
import { FailureLimit } from './auth/failure-limit.js';
import { batchApiRoutes, startBatchWorker } from './batch/index.js';
import { KeyStore } from './auth/key-store.js';
import { meRoute } from './auth/me-route.js';
import { consoleDir, consoleRoutes } from './console/index.js';
import type { Config } from './config.js';
import { eligibilityRoute, EligibilityService } from './eligibility/index.js';
import {
  archiveReader, DecisionLookup, decisionSearchRoute, decisionsRoute, DecisionReader, DecisionRecorder, startDecisionArchiver,
} from './decisions/index.js';
import { historyRoute, identityKeys } from './identity/index.js';
import { healthRoute } from './http/handlers/health.js';
import { openapiRoute } from './http/handlers/openapi.js';
import { metricsRoute } from './http/handlers/metrics.js';
import { Metrics } from './metrics.js';
import { loadHttpEngine } from './http/server.js';
import type { HttpServer, Route } from './http/types.js';
import type { Logger } from './log.js';
import { BudgetLimiter } from './ratelimit/budget.js';
import { CallBudget } from './ratelimit/call-budget.js';
import { createRedis, redisTarget, type RedisClient } from './redis/connection.js';
import { EndOfTurn } from './redis/end-of-turn.js';
import { LiveState } from './state/live-state.js';
import { monitoringApiRoutes, startMonitoringWorker, type AccountSources } from './monitoring/index.js';
import { policyWiring, type PolicyParts } from './policy/index.js';
import { redisKeys, type RedisKeys } from './store/keys.js';
import { snapshotSweeperFromConfig } from './store/snapshot-retention.js';
import { buildOverrides, OverrideEffect, OverrideRegistry, type Overrides } from './overrides/index.js';
import { SERVICE_VERSION } from './version.js';


export interface AppParts {
  config: Config;
  log: Logger;
  keys: RedisKeys;
  /** Fail-fast connection for request paths. */
  redis: RedisClient;
  state: LiveState;
  keyStore: KeyStore;
  auth: Authenticator;
  budget: BudgetLimiter;
  /** Authentication and the calls budget of every authenticated route but the eligibility check. */
  gate: CallGate;
  eligibility: EligibilityService;
  metrics: Metrics;
  /** Decision records: null only when DECISION_RECORDS=off (benchmarks). */
  recorder: DecisionRecorder | null;
  decisions: DecisionReader;
  /** Records by id and by search, from the Redis window and the archive. */
  lookup: DecisionLookup;
  /** Account policies: the per-replica book the checks decide with, the store and the routes. */
  policy: PolicyParts;
  /** The same, as batch jobs pin them. */
  policyPins: PolicyParts['pins'];
  /** Overrides, clearances and the review queue (src/overrides). */
  overrides: Overrides;
  /** The policies and overrides as monitoring reads them (it cannot import those features: they import it). */
  monitoringSources: AccountSources;
  /** The service's clock (tests move it to the second; production: Date.now). */
  now: () => number;
}

export interface RunningApp {
  parts: AppParts;
  http: HttpServer | null;
  /** The /metrics listener when METRICS_PORT is set, else null (then /metrics is on `http`). */
  metricsHttp: HttpServer | null;
  stop(): Promise<void>;
}

/**
 * Monitoring's ports onto the policy and overrides features. The detector loads the active overrides itself, each
 * time their epoch moves, into a registry of its own: what it compares is then exactly what it decided with.
 */
function monitoringSources(policy: PolicyParts, overrides: Overrides, now: () => number): AccountSources {
  const listing = new OverrideEffect(overrides.registry, { note: () => undefined }, overrides.upkeep, now);
  return {
    policies: {
      epoch: () => policy.store.epoch(),
      versions: () => policy.store.currentVersions(),
      rulesetFor: (account, version, floor) => policy.pins.rulesetFor(account, version, floor),
    },
    overrides: {
      epoch: () => overrides.store.epoch(),
      async load() {
        const active = await overrides.store.loadActive();
        const registry = new OverrideRegistry();
        registry.replace(active);
        const effect = new OverrideEffect(registry, overrides.sightings, overrides.upkeep, now);
        return {
          active: active.map((override) => ({ id: override.id, account: override.account, mc: override.mc_number, expiresAtMs: override.expires_at_ms })),
          apply: (verdict, account) => effect.apply(verdict, account, null, 'monitoring'),
        };
      },
      lift: (verdict, account) => listing.apply(verdict, account, null, 'monitoring'),
    },
  };
}

export function buildParts(config: Config, log: Logger, now: () => number = Date.now): AppParts {
  const keys = redisKeys(config.REDIS_PREFIX);
  const redis = createRedis(redisTarget(config), 'request-path', config.REDIS_COMMAND_TIMEOUT_MS);
  const state = new LiveState(redis, keys, config.STATE_POLL_MS, log, config.MAX_DATA_AGE_SECONDS);
  const keyStore = new KeyStore(redis, keys);
  state.addListener({ onKeyEpochChange: () => keyStore.invalidate() });
  // One end-of-turn for the request path: the turn's draws, record writes and carrier lookups leave in one write.
  const endOfTurn = new EndOfTurn(redis);
  const budget = new BudgetLimiter(redis, keys, (error) => state.markDown(error), () => state.redisUp, endOfTurn);
  const recorder = config.DECISION_RECORDS === 'off' ? null : new DecisionRecorder(redis, keys, {
    retentionSeconds: config.DECISION_RETENTION_DAYS * 86_400, maxDataAgeSeconds: config.MAX_DATA_AGE_SECONDS,
  }, endOfTurn);
  if (!recorder) log.error('DECISION_RECORDS=off: verdicts are answered without decision records (benchmarks only, never production)');
  const policy = policyWiring(redis, config, state, log);
  // Overrides ask the eligibility service for raw verdicts, and it asks them after deciding: bound late.
  const overrides = buildOverrides({ config, log, state, evaluate: (mc, account) => eligibility.evaluate(mc, true, account), now });
  const eligibility: EligibilityService = new EligibilityService(redis, keys, state, {
    cacheMax: config.CARRIER_CACHE_MAX, maxDataAgeSeconds: config.MAX_DATA_AGE_SECONDS, recorder, endOfTurn, policies: policy.book, now,
    postDecision: overrides.postDecision,
    carryOver: { max: config.CARRIER_CACHE_WARM_MAX, budgetMs: config.CARRIER_CACHE_WARM_MS },
  });
  // A snapshot switch first reads the cached carriers again from the new snapshot (src/eligibility/cache-carry-over.ts).
  state.addSnapshotPreparer(eligibility);
  const metrics = new Metrics(state);
  const auth = new Authenticator(keyStore, log, Date.now, {
    failures: new FailureLimit(config.AUTH_FAILURES_PER_MINUTE), trustedProxyHops: config.TRUSTED_PROXY_HOPS,
  });
  const gate = new CallGate(auth, new CallBudget(budget, config.API_CALL_RATE_PER_MINUTE), log);
  const decisions = new DecisionReader(redis, keys);
  return {
    config, log, keys, redis, state, keyStore, auth, budget, gate, eligibility, metrics,
    recorder, decisions, lookup: new DecisionLookup(redis, keys, decisions, archiveReader(config)), policy, policyPins: policy.pins, overrides,
    monitoringSources: monitoringSources(policy, overrides, now), now,
  };
}

export function apiRoutes(parts: AppParts): Route[] {
  return [
    eligibilityRoute(parts),
    healthRoute({ state: parts.state, version: SERVICE_VERSION, maxDataAgeSeconds: parts.config.MAX_DATA_AGE_SECONDS }),
    openapiRoute(),
    metricsRoute(parts.metrics),
    decisionsRoute({ gate: parts.gate, decisions: parts.lookup, log: parts.log }),
    decisionSearchRoute({ gate: parts.gate, decisions: parts.lookup, log: parts.log }),
    historyRoute({ gate: parts.gate, redis: parts.redis, keys: parts.keys, identityKeys: identityKeys(parts.config.REDIS_PREFIX), log: parts.log }),
    ...batchApiRoutes(parts),
    ...monitoringApiRoutes(parts),
    meRoute(parts.gate),
    ...parts.policy.routes(parts),
    ...parts.overrides.routes(parts.gate),
    ...consoleRoutes(consoleDir(parts.config.CONSOLE_DIR)),
  ];
}

const METRICS_PATH = '/metrics';

/** ROLE=worker serves only these, so its pods get probes and a scrape target like the API's. */
export function workerRoutes(parts: AppParts): Route[] {
  return [
    healthRoute({ state: parts.state, version: SERVICE_VERSION, maxDataAgeSeconds: parts.config.MAX_DATA_AGE_SECONDS }),
    metricsRoute(parts.metrics),
  ];
}

async function waitUntilReady(redis: RedisClient, timeoutMs: number): Promise<void> {
  if (redis.status === 'ready') return;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(done, timeoutMs);
    function done() {
      clearTimeout(timer);
      redis.off('ready', done);
      resolve();
    }
    redis.on('ready', done);
  });
}

/** Starts the roles the config asks for; stop() drains HTTP, stops workers and closes Redis. */
export async function startApp(config: Config, log: Logger, now: () => number = Date.now): Promise<RunningApp> {
  // First, before any connection is made: a uws engine whose binary does not load refuses to start here.
  const startHttpServer = await loadHttpEngine(config.HTTP_ENGINE);
  const parts = buildParts(config, log, now);
  // The request-path clients have no offline queue, so wait briefly for their first connections (the first state
  // poll reads through both: the overrides' epoch watcher loads through its own); a Redis that is down at start-up
  // must not stop the service from answering (fail-closed verdicts), hence the time limit.
  await Promise.all([waitUntilReady(parts.redis, 2000), waitUntilReady(parts.overrides.redis, 2000)]);
  await parts.state.start();
  await parts.policy.book.start();
  parts.overrides.start();
  let http: HttpServer;
  let metricsHttp: HttpServer | null = null;
  // METRICS_PORT set: /metrics moves to its own listener (a NetworkPolicy can then admit only monitoring there).
  const ownMetricsPort = config.METRICS_PORT !== undefined;
  const routes = (config.ROLE === 'worker' ? workerRoutes(parts) : apiRoutes(parts))
    .filter((route) => !(ownMetricsPort && route.pattern === METRICS_PATH));
  try {
    const durations = parts.metrics.requestDurations;
    http = await startHttpServer(routes, { host: config.HOST, port: config.PORT, log, durations });
    if (config.METRICS_PORT !== undefined) {
      metricsHttp = await startHttpServer([metricsRoute(parts.metrics)], { host: config.HOST, port: config.METRICS_PORT, log, durations })
        .catch(async (error: unknown) => {
          await http.close(0);
          throw error;
        });
    }
  } catch (error) {
    // Port taken: release Redis and the poll timer so the caller can exit (or a test can go on) cleanly.
    parts.state.stop();
    parts.overrides.stop();
    parts.redis.disconnect();
    throw error;
  }
  log.info({ port: http.port, host: config.HOST, metrics_port: metricsHttp?.port ?? http.port }, 'listening');
  const batchWorker = config.ROLE === 'api' ? null : startBatchWorker(parts);
  const monitoring = config.ROLE === 'api' ? null : startMonitoringWorker(parts);
  const archiver = config.ROLE === 'api' ? null : startDecisionArchiver(parts);
  // Retired snapshot versions leave when their grace ends, not only when the next ingest runs.
  const sweeper = config.ROLE === 'api' ? null : snapshotSweeperFromConfig(config, parts.keys, log);
  return {
    parts,
    http,
    metricsHttp,
    async stop() {
      await http?.close(config.SHUTDOWN_GRACE_MS);
      await metricsHttp?.close(0);
      await batchWorker?.stop(config.SHUTDOWN_GRACE_MS);
      await monitoring?.stop(config.SHUTDOWN_GRACE_MS);
      await archiver?.stop();
      await sweeper?.stop();
      parts.state.stop();
      parts.policy.book.stop();
      await parts.overrides.sightings.flush().catch(() => undefined);
      parts.overrides.stop();
      await parts.redis.quit().catch(() => parts.redis.disconnect());
    },
  };
}
