// The overrides feature on one given connection, without a replica's registry, poll or background writers: the
// stores, the use cases (with the account's monitoring events) and the review queue. The composition root builds
// on it, and operator tools (the CLI's `overrides` and `reviews` commands) use it as it is, so a revocation from
// the CLI is the same compare-and-set, log entry, projection and event as one through the API.
import type { Config } from '../config.js';
import type { Verdict } from '../core/verdict.js';
import type { Logger } from '../log.js';
import { EventStore, monitoringKeys } from '../monitoring/index.js';
import { PolicyStore, policyKeys } from '../policy/index.js';
import type { RedisClient } from '../redis/connection.js';
import { overrideKeys } from './keys.js';
import { toActive, type ActiveOverride } from './model.js';
import { ReviewQueue } from './review-queue.js';
import { ReviewStore } from './review-store.js';
import { OverrideService } from './service.js';
import { OverrideStore } from './store.js';

export interface OverrideAdminParts {
  redis: RedisClient;
  config: Config;
  log: Logger;
  /** The carrier's verdict now, before any override, not recorded. */
  evaluate(mc: string, account: string): Promise<Verdict>;
  now(): number;
  /** The account's active overrides for a carrier; default: read from the store. */
  activeFor?(account: string, mc: string): readonly ActiveOverride[];
}

export interface OverrideAdmin {
  store: OverrideStore;
  reviews: ReviewStore;
  service: OverrideService;
  queue: ReviewQueue;
  /** Announces an item found open again (review.opened); never throws. */
  opened(account: string, verdict: Verdict): void;
}

export function buildOverrideAdmin(parts: OverrideAdminParts): OverrideAdmin {
  const { redis, config, log, now } = parts;
  const store = new OverrideStore(redis, overrideKeys(config.REDIS_PREFIX));
  const reviews = new ReviewStore(redis, overrideKeys(config.REDIS_PREFIX));
  const policies = new PolicyStore(redis, policyKeys(config.REDIS_PREFIX));
  const events = new EventStore(redis, monitoringKeys(config.REDIS_PREFIX), config.MONITORING_EVENT_RETENTION_DAYS * 86_400_000);
  const service = new OverrideService({ store, reviews, evaluate: parts.evaluate, events, now, log,
    policyOf: (account) => policies.current(account),
  });
  const opened = (account: string, verdict: Verdict) => {
    void service.emitReviewOpened(account, verdict.mc_number, verdict, now()).catch((error: unknown) => log.warn({ err: error }, 'review.opened not stored'));
  };
  const fromStore = async (account: string, mc: string) => (await store.list(account))
    .filter((record) => record.status === 'active' && record.mc_number === mc).map(toActive);
  const queue = new ReviewQueue({ reviews, evaluate: parts.evaluate, opened, now, activeFor: parts.activeFor ?? fromStore });
  return { store, reviews, service, queue, opened };
}
