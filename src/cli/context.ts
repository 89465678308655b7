// Shared plumbing for CLI commands: the same environment config as the service, a patient Redis client, and
// one way to fail (one clear line on stderr, non-zero exit).
import type { RedisClient } from '../redis/connection.js';
import { ConfigError, loadConfig, type Config } from '../config.js';
import { createRedis, describeTarget, redisTarget } from '../redis/connection.js';
import { redisKeys, type RedisKeys } from '../store/keys.js';

export class CliError extends Error {}

export interface CliContext {
  config: Config;
  redis: RedisClient;
  keys: RedisKeys;
}

/** Runs a command body with a connected context and always closes the connection. */
export async function withContext<T>(body: (context: CliContext) => Promise<T>): Promise<T> {
  let config: Config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) throw new CliError(error.message.replace(/\n\s*/g, ' '));
    throw error;
  }
  const target = redisTarget(config);
  const redis = createRedis(target, 'background');
  try {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      redis.ping(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new CliError(`cannot reach Redis at ${describeTarget(target)}`)), 5000);
      }),
    ]).finally(() => clearTimeout(timer));
    return await body({ config, redis, keys: redisKeys(config.REDIS_PREFIX) });
  } finally {
    redis.disconnect();
  }
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}
