// Every key under a prefix, on standalone Redis or on every master of a Cluster (SCAN sees one node only).
// Tests only: SCAN walks the keyspace.
import type { Redis } from 'ioredis';
import { isCluster, type RedisClient } from '../../src/redis/connection.js';

async function scanNode(node: Redis, prefix: string): Promise<string[]> {
  const found: string[] = [];
  for await (const batch of node.scanStream({ match: `${prefix}*`, count: 1000 }) as AsyncIterable<string[]>) found.push(...batch);
  return found;
}

export async function keysUnder(redis: RedisClient, prefix: string): Promise<string[]> {
  if (!isCluster(redis)) return scanNode(redis, prefix);
  return (await Promise.all(redis.nodes('master').map((node) => scanNode(node, prefix)))).flat();
}
