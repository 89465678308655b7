// Before it writes, the ingest checks that Redis can hold one more snapshot version: a version that does not fit
// would fail mid-write under `noeviction` (OOM errors, the ingest aborted after minutes of work) or, worse under an
// evicting policy, push out keys the service serves. The version's size is estimated from the serving version
// (MEMORY USAGE of a sample of its buckets, scaled to all 16,384 and to this ingest's docket count), or, on a
// first ingest, from the docket count at the documented cost per carrier.
import { isCluster, type RedisClient } from '../redis/connection.js';
import { CARRIER_BUCKETS, type RedisKeys } from '../store/keys.js';
import { IngestError } from './errors.js';

/** Per-version cost of one carrier when there is no serving version to measure (docs/ingest.md, Benchmark). */
export const BYTES_PER_CARRIER_ESTIMATE = 110;
/** A bucket key's own cost (key name, object, hash header) when there is nothing to measure. */
const BYTES_PER_BUCKET_ESTIMATE = 96;
/** Buckets of the serving version measured with MEMORY USAGE (spread evenly over all 16,384). */
const SAMPLED_BUCKETS = 64;
/** Room left above the estimate: buckets vary, and Redis needs some memory of its own while writing. */
const MARGIN = 1.1;

export interface NodeMemory { used: number; max: number; lazyfreePending: number }

function parseMemory(info: string): NodeMemory {
  const field = (name: string) => Number(new RegExp(`^${name}:(\\d+)`, 'm').exec(info)?.[1] ?? 0);
  return { used: field('used_memory'), max: field('maxmemory'), lazyfreePending: field('lazyfree_pending_objects') };
}

/** INFO memory of every node holding carrier buckets (each master of a Cluster, which shards a version evenly). */
async function nodeMemory(redis: RedisClient): Promise<NodeMemory[]> {
  const nodes = isCluster(redis) ? redis.nodes('master') : [redis];
  return Promise.all(nodes.map(async (node) => parseMemory(await node.info('memory'))));
}

/**
 * Bytes per carrier of a version: MEMORY USAGE over HLEN of up to 64 of its buckets, chosen evenly among the buckets
 * `mcs` fall in (a sparse snapshot has most of its 16,384 buckets empty). Key overhead is spread over the carriers
 * the way the sample spreads it. Null when the sample holds no carrier.
 */
export async function measureBytesPerCarrier(redis: RedisClient, keys: RedisKeys, version: string, mcs: Iterable<number>): Promise<number | null> {
  const used = new Set<number>();
  for (const mc of mcs) {
    used.add(mc % CARRIER_BUCKETS);
    if (used.size === CARRIER_BUCKETS) break;
  }
  const buckets = [...used].sort((a, b) => a - b);
  const step = Math.max(1, buckets.length / SAMPLED_BUCKETS);
  const sample = Array.from({ length: Math.min(SAMPLED_BUCKETS, buckets.length) }, (_, i) => buckets[Math.floor(i * step)] as number);
  const measured = await Promise.all(sample.map(async (bucket) => {
    const key = keys.carrierBucket(version, bucket);
    const [bytes, entries] = await Promise.all([memoryUsage(redis, key), redis.hlen(key)]);
    return { bytes, entries };
  }));
  const entries = measured.reduce((sum, item) => sum + item.entries, 0);
  return entries > 0 ? measured.reduce((sum, item) => sum + item.bytes, 0) / entries : null;
}

/**
 * MEMORY USAGE of one key. ioredis' Cluster client does not route MEMORY USAGE by its key (the key is not the
 * first argument), so on a Cluster every master is asked and the one that holds the slot answers (the others
 * reply MOVED).
 */
async function memoryUsage(redis: RedisClient, key: string): Promise<number> {
  if (!isCluster(redis)) return Number(await redis.memory('USAGE', key, 'SAMPLES', 0) ?? 0);
  const replies = await Promise.allSettled(redis.nodes('master').map((node) => node.memory('USAGE', key, 'SAMPLES', 0)));
  for (const reply of replies) if (reply.status === 'fulfilled') return Number(reply.value ?? 0);
  return 0;
}

const mb = (bytes: number) => (bytes >= 1_073_741_824 ? `${(bytes / 1_073_741_824).toFixed(2)} GB`
  : bytes >= 1_048_576 ? `${(bytes / 1_048_576).toFixed(1)} MB` : `${(bytes / 1024).toFixed(1)} KB`);

/**
 * Refuses with one line naming the shortfall when one more version (`needed` bytes) would not fit under Redis'
 * maxmemory on every node. No maxmemory (0) means no limit to check against. Memory freed by UNLINK is given back
 * in the background: the check waits briefly for it first.
 */
export async function checkHeadroom(
  redis: RedisClient, estimate: { bytes: number; basis: string }, wait: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
): Promise<{ needed: number; free: number | null }> {
  let nodes = await nodeMemory(redis);
  for (let i = 0; i < 50 && nodes.some((node) => node.lazyfreePending > 0); i++) {
    await wait(100);
    nodes = await nodeMemory(redis);
  }
  const needed = Math.round(estimate.bytes * MARGIN);
  const limited = nodes.filter((node) => node.max > 0);
  if (limited.length === 0) return { needed, free: null };
  const perNode = needed / nodes.length;
  const tightest = limited.reduce((a, b) => (b.max - b.used < a.max - a.used ? b : a));
  const free = Math.max(0, tightest.max - tightest.used);
  if (free < perNode) {
    const where = nodes.length > 1 ? ` on the fullest of ${nodes.length} masters` : '';
    throw new IngestError('redis', null, null,
      `not enough memory for one more snapshot version${where}: ${mb(free)} free of maxmemory ${mb(tightest.max)} (${mb(tightest.used)} used), `
      + `the new version needs about ${mb(perNode)} (${estimate.basis}, plus 10%); short by ${mb(perNode - free)}. `
      + 'Raise maxmemory, or lower SNAPSHOT_MAX_VERSIONS so fewer retired versions are kept; nothing was written');
  }
  return { needed, free };
}

/** The size of the version this ingest is about to write: the serving version's bytes per carrier × the dockets read now. */
export async function estimateVersionBytes(
  redis: RedisClient, keys: RedisKeys, serving: string | null, mcs: { readonly size: number; keys(): Iterable<number> },
): Promise<{ bytes: number; basis: string }> {
  const dockets = mcs.size;
  const perCarrier = serving ? await measureBytesPerCarrier(redis, keys, serving, mcs.keys()) : null;
  if (perCarrier !== null) {
    return { bytes: perCarrier * dockets, basis: `${dockets.toLocaleString('en-US')} dockets × ${Math.round(perCarrier)} B per carrier in the serving version` };
  }
  return { bytes: dockets * BYTES_PER_CARRIER_ESTIMATE + CARRIER_BUCKETS * BYTES_PER_BUCKET_ESTIMATE, basis: `${dockets.toLocaleString('en-US')} dockets × ${BYTES_PER_CARRIER_ESTIMATE} B and the buckets' own cost` };
}
