// Removes every key under a prefix with SCAN + UNLINK. For tests, benchmarks and operators only: SCAN walks the
// whole keyspace, so nothing on a request path may call this.
import type { Redis } from 'ioredis';

export async function deleteByPrefix(redis: Redis, prefix: string): Promise<number> {
  let cursor = '0';
  let removed = 0;
  do {
    const [next, found] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    if (found.length > 0) removed += await redis.unlink(...found);
  } while (cursor !== '0');
  return removed;
}
