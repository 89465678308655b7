// Redis connections. The request path uses a fail-fast client: no offline queue and a short command timeout,
// so an outage turns into a degraded verdict in milliseconds instead of a hang. Background work (ingest, batch
// workers, CLI) uses a patient client that queues while reconnecting.
import { Redis, type RedisOptions } from 'ioredis';

export type RedisProfile = 'request-path' | 'background';

export function createRedis(url: string, profile: RedisProfile, commandTimeoutMs = 150): Redis {
  const options: RedisOptions = profile === 'request-path'
    ? {
      enableOfflineQueue: false,
      commandTimeout: commandTimeoutMs,
      connectTimeout: 1000,
      maxRetriesPerRequest: 0,
      // Reconnect quickly and forever: recovery after an outage must need no operator.
      retryStrategy: (attempt) => Math.min(50 * attempt, 500),
      lazyConnect: false,
    }
    : {
      enableOfflineQueue: true,
      connectTimeout: 5000,
      maxRetriesPerRequest: null,
      retryStrategy: (attempt) => Math.min(100 * attempt, 2000),
    };
  const client = new Redis(url, options);
  // Connection errors surface through command failures and the health state; without a listener ioredis
  // would print each reconnect attempt as an unhandled error event.
  client.on('error', () => undefined);
  return client;
}
