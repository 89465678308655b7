// Removes every key under a prefix with SCAN + UNLINK. For tests, benchmarks and operators only: SCAN walks the
// whole keyspace, so nothing on a request path may call this. On a Cluster each master is scanned on its own
// connection (SCAN only sees the node it runs on), and keys are unlinked one per command: keys found together
// on one node may still belong to different slots.
import type { Redis } from 'ioredis';
import { isCluster, type RedisClient } from './connection.js';

async function deleteOnNode(node: Redis, prefix: string): Promise<number> {
  let cursor = '0';
  let removed = 0;
  do {
    const [next, found] = await node.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    if (found.length > 0) {
      const pipeline = node.pipeline();
      for (const key of found) pipeline.unlink(key);
      for (const [error, count] of (await pipeline.exec()) ?? []) if (!error) removed += Number(count);
    }
  } while (cursor !== '0');
  return removed;
}

export async function deleteByPrefix(redis: RedisClient, prefix: string): Promise<number> {
  if (!isCluster(redis)) return deleteOnNode(redis, prefix);
  const counts = await Promise.all(redis.nodes('master').map((node) => deleteOnNode(node, prefix)));
  return counts.reduce((sum, count) => sum + count, 0);
}
