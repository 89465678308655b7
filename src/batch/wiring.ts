// Builds the batch feature's parts from the composition root's: the routes on the request-path connection,
// and the worker on patient connections of its own (a worker queues through Redis restarts rather than
// failing fast; the blocking read needs a connection to itself).
import type { CallGate } from '../auth/call-gate.js';
import type { KeyStore } from '../auth/key-store.js';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import type { Verdict } from '../core/verdict.js';
import type { RecordContext } from '../decisions/index.js';
import type { RedisKeys } from '../store/keys.js';
import { batchRoutes } from './route.js';
import type { Route } from '../http/types.js';
import { BudgetLimiter } from '../ratelimit/budget.js';
import { createRedis, redisTarget, type RedisClient } from '../redis/connection.js';
import { DecisionRecorder } from '../decisions/index.js';
import { ChunkScreener } from './chunk-screener.js';
import { BatchJobs } from './jobs.js';
import { PinnedScreening, type PolicyPins } from './pinned-screening.js';
import { BatchWorker } from './worker.js';

/** What the composition root hands the feature (it never imports the root itself). */
export interface BatchParts {
  config: Config;
  log: Logger;
  keys: RedisKeys;
  /** Fail-fast connection for request paths. */
  redis: RedisClient;
  keyStore: KeyStore;
  gate: CallGate;
  /** Account policies (src/policy), pinned per job. */
  policyPins?: PolicyPins;
  /** The rows' post-decision step (the account's overrides and review queue); none when absent. */
  overrides?: { postDecision(verdict: Verdict, context: RecordContext): Verdict };
}

function jobsOn(parts: BatchParts, redis: RedisClient): BatchJobs {
  const { config } = parts;
  return new BatchJobs(redis, config.REDIS_PREFIX, {
    deadlineSeconds: config.BATCH_JOB_DEADLINE_SECONDS, retentionSeconds: config.BATCH_RETENTION_SECONDS,
  });
}

export function batchApiRoutes(parts: BatchParts): Route[] {
  return batchRoutes({
    gate: parts.gate, jobs: jobsOn(parts, parts.redis), redis: parts.redis,
    headroom: parts.config.BATCH_BUDGET_HEADROOM, log: parts.log, ...(parts.policyPins ? { policies: parts.policyPins } : {}),
  });
}

export interface RunningBatchWorker {
  stop(graceMs: number): Promise<void>;
}

export function startBatchWorker(parts: BatchParts): RunningBatchWorker {
  const { config, log, keys } = parts;
  const redis = createRedis(redisTarget(config), 'background');
  const blocking = createRedis(redisTarget(config), 'background');
  const jobs = jobsOn(parts, redis);
  let worker: BatchWorker | null = null;
  const screener = new ChunkScreener({
    redis, prefix: config.REDIS_PREFIX, keyStore: parts.keyStore,
    screening: new PinnedScreening(redis, keys, config.MAX_DATA_AGE_SECONDS, Date.now, parts.policyPins ?? null),
    // Its own limiter on the worker's connection: draws wait through a Redis restart instead of failing.
    budget: new BudgetLimiter(redis, keys, () => undefined),
    postDecision: parts.overrides?.postDecision,
    headroom: config.BATCH_BUDGET_HEADROOM, retentionMs: config.BATCH_RETENTION_SECONDS * 1000, log,
    recorder: config.DECISION_RECORDS === 'off' ? null : new DecisionRecorder(redis, keys, {
      retentionSeconds: config.DECISION_RETENTION_DAYS * 86_400, maxDataAgeSeconds: config.MAX_DATA_AGE_SECONDS,
    }),
    onBudgetWait: (jobId, untilMs) => worker?.onBudgetWait(jobId, untilMs),
  });
  worker = new BatchWorker({
    redis, blocking, jobs, screener, concurrency: config.WORKER_CONCURRENCY, claimIdleMs: config.BATCH_CLAIM_IDLE_MS, log,
  });
  worker.start();
  const running = worker;
  return {
    async stop(graceMs) {
      await running.stop(graceMs);
      // Not QUIT: it would wait on a hung Redis. Anything unrecorded stays pending and is claimed elsewhere.
      redis.disconnect();
    },
  };
}
