// Redis connections, one factory for every mode (standalone, Sentinel, Cluster) and both profiles. The request
// path uses a fail-fast client: no offline queue and a short command timeout, so an outage turns into a degraded
// verdict in milliseconds instead of a hang. Background work (ingest, batch workers, CLI) uses a patient client
// that queues while reconnecting.
//
// Failover: every mode reconnects to the new primary by itself. A command answered READONLY (the node we talk
// to was demoted to a replica) drops the connection; in Sentinel mode the reconnect asks the Sentinels for the
// current master, and the Sentinel failover detector drops it as soon as +switch-master is announced. Cluster
// mode follows MOVED redirections and refreshes its slot map on its own.
import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';

/** What every store, state and batch module talks to; the methods they use exist on both classes. */
export type RedisClient = Redis | Cluster;

export type RedisProfile = 'request-path' | 'background';

export type RedisTarget =
  | { mode: 'standalone'; url: string }
  | { mode: 'sentinel'; url: string; sentinels: Array<{ host: string; port: number }>; name: string }
  | { mode: 'cluster'; url: string; nodes: Array<{ host: string; port: number }> };

interface RedisConfigLike {
  REDIS_MODE: 'standalone' | 'sentinel' | 'cluster';
  REDIS_URL: string;
  REDIS_SENTINELS?: Array<{ host: string; port: number }> | undefined;
  REDIS_SENTINEL_NAME?: string | undefined;
  REDIS_CLUSTER_NODES?: Array<{ host: string; port: number }> | undefined;
}

/** The target a validated config names (loadConfig guarantees each mode's settings are present). */
export function redisTarget(config: RedisConfigLike): RedisTarget {
  if (config.REDIS_MODE === 'sentinel') {
    return { mode: 'sentinel', url: config.REDIS_URL, sentinels: config.REDIS_SENTINELS ?? [], name: config.REDIS_SENTINEL_NAME ?? '' };
  }
  if (config.REDIS_MODE === 'cluster') return { mode: 'cluster', url: config.REDIS_URL, nodes: config.REDIS_CLUSTER_NODES ?? [] };
  return { mode: 'standalone', url: config.REDIS_URL };
}

/** A description for logs and CLI errors, without credentials. */
export function describeTarget(target: RedisTarget): string {
  if (target.mode === 'sentinel') return `sentinel ${target.name} via ${target.sentinels.map((n) => `${n.host}:${n.port}`).join(',')}`;
  if (target.mode === 'cluster') return `cluster via ${target.nodes.map((n) => `${n.host}:${n.port}`).join(',')}`;
  return target.url.replace(/\/\/[^@/]*@/, '//***@');
}

/** Credentials, database and TLS from REDIS_URL (in Sentinel and Cluster mode its host is not used). */
function urlOptions(url: string): RedisOptions {
  const parsed = new URL(url);
  const options: RedisOptions = {};
  if (parsed.username) options.username = decodeURIComponent(parsed.username);
  if (parsed.password) options.password = decodeURIComponent(parsed.password);
  if (parsed.protocol === 'rediss:') options.tls = {};
  return options;
}

function profileOptions(profile: RedisProfile, commandTimeoutMs: number): RedisOptions {
  return profile === 'request-path'
    ? {
      enableOfflineQueue: false,
      commandTimeout: commandTimeoutMs,
      connectTimeout: 1000,
      maxRetriesPerRequest: 0,
      // Reconnect quickly and forever: recovery after an outage must need no operator.
      retryStrategy: (attempt) => Math.min(50 * attempt, 500),
      // READONLY: reconnect (to the new primary) but do not resend; the caller already failed closed.
      reconnectOnError: (error) => (error.message.startsWith('READONLY') ? 1 : false),
      lazyConnect: false,
    }
    : {
      enableOfflineQueue: true,
      connectTimeout: 5000,
      maxRetriesPerRequest: null,
      retryStrategy: (attempt) => Math.min(100 * attempt, 2000),
      // READONLY: reconnect and resend the command, which then reaches the new primary.
      reconnectOnError: (error) => (error.message.startsWith('READONLY') ? 2 : false),
    };
}

export function createRedis(target: RedisTarget | string, profile: RedisProfile, commandTimeoutMs = 150): RedisClient {
  const resolved: RedisTarget = typeof target === 'string' ? { mode: 'standalone', url: target } : target;
  const options = profileOptions(profile, commandTimeoutMs);
  let client: RedisClient;
  if (resolved.mode === 'standalone') {
    client = new Redis(resolved.url, options);
  } else if (resolved.mode === 'sentinel') {
    client = new Redis({
      ...options, ...urlOptions(resolved.url),
      sentinels: resolved.sentinels, name: resolved.name, role: 'master',
      // Subscribes to the Sentinels' +switch-master so a planned failover is followed at once.
      failoverDetector: true,
      sentinelRetryStrategy: (attempt) => Math.min(100 * attempt, 1000),
      sentinelMaxConnections: 3,
    });
  } else {
    const { retryStrategy: _nodeRetry, ...nodeOptions } = options;
    const clusterOptions: ClusterOptions = {
      redisOptions: { ...nodeOptions, ...urlOptions(resolved.url) },
      enableOfflineQueue: options.enableOfflineQueue ?? true,
      ...(options.maxRetriesPerRequest === undefined ? {} : { maxRetriesPerRequest: options.maxRetriesPerRequest }),
      // Commands for many slots (carrier buckets of one chunk or one ingest batch) are sent one by one and
      // grouped per node into one write by ioredis; see src/redis/keyed-batch.ts.
      enableAutoPipelining: true,
      scaleReads: 'master',
      clusterRetryStrategy: (attempt) => Math.min(100 * attempt, profile === 'request-path' ? 500 : 2000),
      retryDelayOnFailover: 100,
      retryDelayOnClusterDown: 100,
      slotsRefreshTimeout: 2000,
      // TRYAGAIN (a multi-key command during a slot migration): retry shortly instead of failing the work.
      retryDelayOnTryAgain: 100,
    };
    client = new Cluster(resolved.nodes, clusterOptions);
  }
  // Connection errors surface through command failures and the health state; without a listener ioredis
  // would print each reconnect attempt as an unhandled error event.
  client.on('error', () => undefined);
  return client;
}

export function isCluster(client: RedisClient): client is Cluster {
  return client instanceof Cluster;
}
