// Builds the overrides and review-queue feature from the composition root's parts: one management connection
// (routes, state changes, review sightings; never the verdict's request-path connection), the replica's registry
// fed by the live-state poll, the post-decision effect the verdict paths call, and the routes.
import type { CallGate } from '../auth/call-gate.js';
import type { Config } from '../config.js';
import type { Verdict } from '../core/verdict.js';
import type { RecordContext } from '../decisions/index.js';
import type { Route } from '../http/types.js';
import type { Logger } from '../log.js';
import { createRedis, redisTarget, type RedisClient } from '../redis/connection.js';
import { reviewRoutes } from './review-route.js';
import { CoalescedSightings } from './review-sightings.js';
import type { ReviewStore } from './review-store.js';
import { buildOverrideAdmin } from './admin.js';
import type { LiveState } from '../state/live-state.js';
import { OverrideEffect } from './effect.js';
import { overrideKeys } from './keys.js';
import { OverrideRegistry } from './registry.js';
import { overrideRoutes } from './route.js';
import type { OverrideService } from './service.js';
import type { OverrideStore } from './store.js';
import { OverrideUpkeep } from './upkeep.js';

/** Management calls: a fail-fast connection, but not the verdict's short command budget. */
const MANAGEMENT_TIMEOUT_MS = 2000;

export interface OverrideParts {
  config: Config;
  log: Logger;
  state: LiveState;
  /** The carrier's verdict now, before any override, not recorded. */
  evaluate(mc: string, account: string): Promise<Verdict>;
  now(): number;
}

export interface Overrides {
  /** The feature's own request-path client (management timeout): start-up waits for it as for the main one. */
  redis: RedisClient;
  registry: OverrideRegistry;
  store: OverrideStore;
  reviews: ReviewStore;
  service: OverrideService;
  sightings: CoalescedSightings;
  upkeep: OverrideUpkeep;
  effect: OverrideEffect;
  /** The eligibility service's post-decision step for a recorded check. */
  postDecision(verdict: Verdict, context: RecordContext): Verdict;
  routes(gate: CallGate): Route[];
  start(): void;
  stop(): void;
}

export function buildOverrides(parts: OverrideParts, connection?: RedisClient): Overrides {
  const { config, log, now } = parts;
  const redis = connection ?? createRedis(redisTarget(config), 'request-path', Math.max(config.REDIS_COMMAND_TIMEOUT_MS, MANAGEMENT_TIMEOUT_MS));
  const registry = new OverrideRegistry();
  const { store, reviews, service, queue, opened } = buildOverrideAdmin({
    redis, config, log, now, evaluate: parts.evaluate, activeFor: (account, mc) => registry.forCarrier(account, mc),
  });
  const sightings = new CoalescedSightings(reviews, log, now, opened);
  const upkeep = new OverrideUpkeep(service, registry, log, now);
  const effect = new OverrideEffect(registry, sightings, upkeep, now);
  parts.state.addEpochWatcher({ key: overrideKeys(config.REDIS_PREFIX).epoch, changed: async () => registry.replace(await store.loadActive()) });
  return {
    redis, registry, store, reviews, service, sightings, upkeep, effect,
    postDecision: (verdict, context) => effect.apply(verdict, context.account, context.reference, context.kind === 'check' ? 'check' : 'batch_row'),
    routes: (gate) => [
      ...overrideRoutes({ gate, service, store, now, log }),
      ...reviewRoutes({ gate, queue, log }),
    ],
    start() {
      sightings.start();
      upkeep.start(config.STATE_POLL_MS);
    },
    stop() {
      sightings.stop();
      upkeep.stop();
      if (connection === undefined) redis.disconnect();
    },
  };
}
