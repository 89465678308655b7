// Integration tests need a real Redis. Fail loudly (never skip) when none answers.
import { Redis } from 'ioredis';

export default async function setup(): Promise<void> {
  const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 2000 });
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    throw new Error(`integration tests need Redis at ${url}: start one with \`redis-server --daemonize yes --save "" --appendonly no\` (${String(error)})`);
  } finally {
    redis.disconnect();
  }
}
