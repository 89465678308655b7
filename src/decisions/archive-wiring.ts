// Builds the decision archive's parts from the config: the store (S3 when DECISION_ARCHIVE_S3_BUCKET is set,
// else the DECISION_ARCHIVE_DIR directory), the reader the API and CLI use, and the continuous archiver that
// the worker role runs: every DECISION_ARCHIVE_INTERVAL_SECONDS, under a Redis lease so one archiver writes the
// chain, archive up to DECISION_ARCHIVE_LAG_SECONDS ago, evict what is archived and older than the Redis
// window, and once an hour delete archived data older than DECISION_ARCHIVE_YEARS that no legal hold covers.
import { randomUUID } from 'node:crypto';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { createRedis, redisTarget, type RedisClient } from '../redis/connection.js';
import { luaScripts } from '../redis/scripts.js';
import type { RedisKeys } from '../store/keys.js';
import { parseSigningKey } from './archive.js';
import { ArchiveReader } from './archive-reader.js';
import { S3ArchiveStore } from './archive-s3.js';
import { LocalArchiveStore, type ArchiveStore } from './archive-store.js';
import { DecisionArchiver, secondOf } from './archiver.js';
import { parseLegalHold } from './legal-hold.js';

export function archiveStore(config: Config): ArchiveStore {
  if (config.DECISION_ARCHIVE_S3_BUCKET) {
    return new S3ArchiveStore({
      bucket: config.DECISION_ARCHIVE_S3_BUCKET, prefix: config.DECISION_ARCHIVE_S3_PREFIX,
      ...(config.DECISION_ARCHIVE_S3_ENDPOINT ? { endpoint: config.DECISION_ARCHIVE_S3_ENDPOINT } : {}),
      forcePathStyle: config.DECISION_ARCHIVE_S3_ENDPOINT !== undefined,
    });
  }
  return new LocalArchiveStore(config.DECISION_ARCHIVE_DIR);
}

export function archiveReader(config: Config): ArchiveReader {
  return new ArchiveReader(archiveStore(config));
}

export function buildArchiver(config: Config, redis: RedisClient, keys: RedisKeys, log?: Logger): DecisionArchiver {
  if (!config.DECISION_SIGNING_KEY) throw new Error('DECISION_SIGNING_KEY is not set: archive manifests must be signed (docs/decisions-archive.md)');
  return new DecisionArchiver(redis, keys, archiveStore(config), parseSigningKey(config.DECISION_SIGNING_KEY), {
    retentionSeconds: config.DECISION_RETENTION_DAYS * 86_400, archiveYears: config.DECISION_ARCHIVE_YEARS,
    legalHold: parseLegalHold(config.DECISION_LEGAL_HOLD), ...(log ? { log } : {}),
  });
}

/** The lease: held by one archiver; a crashed holder's lease lapses after this. */
export const leaseMs = (config: Config) => Math.max(300_000, config.DECISION_ARCHIVE_INTERVAL_SECONDS * 3000);

export interface RunningArchiver {
  stop(): Promise<void>;
}

export function startDecisionArchiver(parts: { config: Config; keys: RedisKeys; log: Logger }): RunningArchiver {
  const { config, keys, log } = parts;
  if (config.DECISION_ARCHIVER === 'off' || config.DECISION_RECORDS === 'off') return { stop: async () => undefined };
  if (!config.DECISION_SIGNING_KEY) {
    log.error('DECISION_SIGNING_KEY is not set: the decision archiver is not running, so decision records stay in Redis (docs/decisions-archive.md)');
    return { stop: async () => undefined };
  }
  const redis = createRedis(redisTarget(config), 'background');
  const archiver = buildArchiver(config, redis, keys, log);
  const token = randomUUID();
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> = Promise.resolve();
  let lastPrune = 0;
  const tick = async () => {
    if (!(await luaScripts.decisionArchiverLock(redis, keys.decisionArchiverLease, token, leaseMs(config)))) return;
    const now = Date.now();
    const pass = await archiver.archiveUntil(secondOf(now) - config.DECISION_ARCHIVE_LAG_SECONDS);
    const evicted = await archiver.evictBefore(secondOf(now) - config.DECISION_RETENTION_DAYS * 86_400);
    if (pass.records > 0 || evicted.buckets > 0) log.info({ ...pass, evicted_buckets: evicted.buckets, catch_ups: evicted.catch_ups }, 'decision archive pass');
    if (now - lastPrune >= 3_600_000) {
      lastPrune = now;
      const pruned = await archiver.prune(now);
      if (pruned.deleted > 0 || pruned.held > 0) log.info(pruned, 'decision archive: segments past DECISION_ARCHIVE_YEARS deleted or held');
    }
  };
  const runTick = () => {
    running = tick().catch((error: unknown) => {
      // The head is read again from the store next time: the store, not memory, is the truth.
      archiver.forgetHead();
      log.error({ err: error }, 'decision archive pass failed; records stay in Redis until a pass succeeds');
    }).finally(() => {
      if (!stopped) timer = setTimeout(runTick, config.DECISION_ARCHIVE_INTERVAL_SECONDS * 1000);
    });
  };
  // The first pass soon after start, then one every interval.
  timer = setTimeout(runTick, 1000);
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
      await luaScripts.decisionArchiverLock(redis, keys.decisionArchiverLease, token, 0).catch(() => false);
      redis.disconnect();
    },
  };
}
