// Builds the monitoring feature from the composition root's parts: the API routes (request-path connection),
// and in the worker role the change detector (one leader at a time) and the webhook deliverers, both on
// patient connections of their own (a worker waits through Redis restarts rather than failing fast).
import { IdentityEvents } from './identity-events.js';
import type { CallGate } from '../auth/call-gate.js';
import type { Config } from '../config.js';
import { DecisionRecorder } from '../decisions/index.js';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics.js';
import type { LiveState } from '../state/live-state.js';
import type { RedisKeys } from '../store/keys.js';
import type { EligibilityService } from '../eligibility/index.js';
import type { Route } from '../http/types.js';
import { createRedis, redisTarget, type RedisClient } from '../redis/connection.js';
import { WebhookDeliverer } from './delivery.js';
import type { AccountSources } from './account-view.js';
import { ChangeDetector } from './detector.js';
import { DetectorLoop } from './detector-loop.js';
import { EventStore } from './event-store.js';
import { monitoringKeys } from './keys.js';
import { MonitoringMetrics } from './metrics.js';
import { monitoringRoutes } from './routes.js';
import { WebhookSender } from './sender.js';
import { WatchListStore } from './watchlist.js';
import { WebhookStore } from './webhook-store.js';

/** What the composition root hands the feature (it never imports the root itself). */
export interface MonitoringParts {
  config: Config;
  log: Logger;
  keys: RedisKeys;
  redis: RedisClient;
  state: LiveState;
  gate: CallGate;
  eligibility: EligibilityService;
  /** The service's metrics; the worker registers monitoring's own on its registry. */
  metrics?: Metrics;
  /** Account policies and overrides, so each watching account gets its own verdict (absent: the global one). */
  monitoringSources?: AccountSources;
  /** The service's clock (overrides expire on it to the millisecond). */
  now?: () => number;
}

function stores(parts: MonitoringParts, redis: RedisClient) {
  const mkeys = monitoringKeys(parts.config.REDIS_PREFIX);
  return {
    mkeys,
    watch: new WatchListStore(redis, mkeys),
    webhooks: new WebhookStore(redis, mkeys),
    events: new EventStore(redis, mkeys, parts.config.MONITORING_EVENT_RETENTION_DAYS * 86_400_000),
  };
}

/** Management calls write up to 5000 rows at once: a fail-fast connection, but not the 150 ms verdict budget. */
const MANAGEMENT_TIMEOUT_MS = 2000;

export function monitoringApiRoutes(parts: MonitoringParts): Route[] {
  const redis = createRedis(redisTarget(parts.config), 'request-path', Math.max(parts.config.REDIS_COMMAND_TIMEOUT_MS, MANAGEMENT_TIMEOUT_MS));
  // Closed with the service's own request-path connection (the composition root closes that one on stop).
  parts.redis.once('end', () => redis.disconnect());
  const { watch, webhooks, events } = stores(parts, redis);
  const ready = () => (redis.status === 'ready' ? Promise.resolve() : new Promise<void>((resolve) => {
    const timer = setTimeout(done, MANAGEMENT_TIMEOUT_MS);
    function done() {
      clearTimeout(timer);
      redis.off('ready', done);
      resolve();
    }
    redis.on('ready', done);
  }));
  const lift = parts.monitoringSources?.overrides?.lift;
  // The listed verdict is the account's: under its policy (the eligibility service's), lifted by its overrides.
  const evaluate = async (mc: string, account: string) => {
    const verdict = await parts.eligibility.evaluate(mc, true, account);
    return lift ? lift(verdict, account) : verdict;
  };
  return monitoringRoutes({
    ready,
    gate: parts.gate, watch, webhooks, events, evaluate,
    maxWatched: parts.config.MONITORING_MAX_WATCHED, allowPrivateWebhooks: parts.config.WEBHOOK_ALLOW_PRIVATE, log: parts.log,
  });
}

export interface RunningMonitoring {
  detector: DetectorLoop;
  deliverer: WebhookDeliverer;
  stop(graceMs: number): Promise<void>;
}

export function startMonitoringWorker(parts: MonitoringParts): RunningMonitoring {
  const { config, log, keys } = parts;
  const redis = createRedis(redisTarget(config), 'background');
  const { mkeys, watch, webhooks, events } = stores(parts, redis);
  const metrics = parts.metrics ? new MonitoringMetrics(parts.metrics.registry) : undefined;
  const recorder = config.DECISION_RECORDS === 'off' ? null : new DecisionRecorder(redis, keys, {
    retentionSeconds: config.DECISION_RETENTION_DAYS * 86_400, maxDataAgeSeconds: config.MAX_DATA_AGE_SECONDS,
  });
  const detector = new DetectorLoop(new ChangeDetector({
    redis, keys, mkeys, state: parts.state, watch, events, recorder, maxDataAgeSeconds: config.MAX_DATA_AGE_SECONDS, log, metrics,
    accounts: parts.monitoringSources, now: parts.now, identity: new IdentityEvents(redis, config.REDIS_PREFIX, mkeys, watch, events),
  }), redis, mkeys.leader, mkeys.accounts, config.MONITORING_POLL_MS, log, metrics);
  const sender = new WebhookSender(config.WEBHOOK_ALLOW_PRIVATE, config.WEBHOOK_TIMEOUT_MS);
  const deliverer = new WebhookDeliverer({
    redis, mkeys, store: webhooks, events, sender, log,
    retryWindowMs: config.WEBHOOK_RETRY_WINDOW_SECONDS * 1000, retryBaseMs: config.WEBHOOK_RETRY_BASE_MS,
    // Longer than one attempt can take, so a live worker never loses its endpoint to another mid-send.
    leaseMs: config.WEBHOOK_TIMEOUT_MS * 3, pollMs: Math.min(200, config.MONITORING_POLL_MS), concurrency: 32, metrics,
  });
  detector.start();
  deliverer.start();
  return {
    detector,
    deliverer,
    async stop(graceMs) {
      await detector.stop().catch(() => undefined);
      await deliverer.stop(graceMs);
      sender.close();
      redis.disconnect();
    },
  };
}
