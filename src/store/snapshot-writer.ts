// Writes one complete snapshot version, then flips the pointer: readers never see a half-written version
// because they only read the version named by snapshot:current, and that is set last.
import type { Redis } from 'ioredis';
import type { SnapshotMeta } from '../core/carrier.js';
import { encodeCarrier, type StoredCarrier } from './carrier-codec.js';
import { CARRIER_BUCKETS, carrierBucket, type RedisKeys } from './keys.js';

const FLUSH_EVERY = 2000;

export function newSnapshotVersion(nowMs: number): string {
  return `v${nowMs.toString(36)}${Math.random().toString(36).slice(2, 6)}`;
}

export class SnapshotWriter {
  private pending = 0;
  private pipeline;
  private written = 0;

  constructor(private readonly redis: Redis, private readonly keys: RedisKeys, readonly version: string) {
    this.pipeline = redis.pipeline();
  }

  /** Registers the version as "being written" so a crashed ingest can be cleaned up later. */
  async begin(nowMs: number): Promise<void> {
    await this.redis.zadd(this.keys.snapshotVersions, nowMs, this.version);
  }

  async put(mc: string, carrier: StoredCarrier): Promise<void> {
    this.pipeline.hset(this.keys.carrierBucket(this.version, carrierBucket(mc)), mc, encodeCarrier(carrier));
    this.written += 1;
    if (++this.pending >= FLUSH_EVERY) await this.flush();
  }

  get count(): number {
    return this.written;
  }

  private async flush(): Promise<void> {
    if (this.pending === 0) return;
    const pipeline = this.pipeline;
    this.pipeline = this.redis.pipeline();
    this.pending = 0;
    const results = await pipeline.exec();
    const failure = results?.find(([error]) => error);
    if (failure?.[0]) throw failure[0];
  }

  /** Writes the meta and makes this version current; returns the version it replaced. */
  async commit(meta: Omit<SnapshotMeta, 'version'>): Promise<string | null> {
    await this.flush();
    const full: SnapshotMeta = { ...meta, version: this.version };
    await this.redis.set(this.keys.snapshotMeta(this.version), JSON.stringify(full));
    const previous = await this.redis.getset(this.keys.snapshotCurrent, this.version);
    return previous;
  }

  /** Removes every key of this version; safe to call on a version that was never committed. */
  async abort(): Promise<void> {
    this.pipeline = this.redis.pipeline();
    this.pending = 0;
    await removeSnapshotVersion(this.redis, this.keys, this.version);
  }
}

export async function removeSnapshotVersion(redis: Redis, keys: RedisKeys, version: string): Promise<void> {
  for (let start = 0; start < CARRIER_BUCKETS; start += 1024) {
    const batch: string[] = [];
    for (let bucket = start; bucket < Math.min(start + 1024, CARRIER_BUCKETS); bucket++) {
      batch.push(keys.carrierBucket(version, bucket));
    }
    // UNLINK frees memory off the main thread; one key per command keeps it cluster-safe.
    const pipeline = redis.pipeline();
    for (const key of batch) pipeline.unlink(key);
    await pipeline.exec();
  }
  await redis.unlink(keys.snapshotMeta(version));
  await redis.zrem(keys.snapshotVersions, version);
}
