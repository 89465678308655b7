// Every Redis key this service owns, built in one place under the configured prefix.
// Keys a single Lua script touches share a {hash tag} so the scripts run unchanged on Redis Cluster.

/** Carrier hashes are split into this many buckets per snapshot version so each stays a compact listpack. */
export const CARRIER_BUCKETS = 16_384;

export function carrierBucket(mc: string): number {
  // MC numbers are dense sequential integers, so the number itself spreads evenly over buckets.
  return Number(mc) % CARRIER_BUCKETS;
}

export function redisKeys(prefix: string) {
  return {
    /** String: the version id of the snapshot being served. */
    snapshotCurrent: `${prefix}snapshot:current`,
    /** String (JSON SnapshotMeta) of one version. */
    snapshotMeta: (version: string) => `${prefix}snapshot:${version}:meta`,
    /** Hash bucket of carrier records: field = MC number, value = encoded record. */
    carrierBucket: (version: string, bucket: number) => `${prefix}snapshot:${version}:c:${bucket}`,
    /** Set of versions being written or waiting for removal (for cleanup after a crash or grace period). */
    snapshotVersions: `${prefix}snapshot:versions`,
    /** Counter for rule set versions. */
    rulesetSeq: `${prefix}ruleset:seq`,
    /** String: current rule set version. */
    rulesetCurrent: `${prefix}ruleset:current`,
    /** String (JSON PublishedRuleSet). */
    ruleset: (version: number) => `${prefix}ruleset:${version}`,
    /** Hash: one API key record. */
    apiKey: (id: string) => `${prefix}key:${id}`,
    /** Set of all key ids (for `keys list`, never on a request path). */
    apiKeyIndex: `${prefix}keys`,
    /** Counter bumped on every key change; replicas drop their key cache when it moves. */
    apiKeyEpoch: `${prefix}keys:epoch`,
    /** Sliding-window log of one key's budget draws (sorted set) and its running sum. */
    rateLog: (keyId: string) => `${prefix}rl:{${keyId}}:log`,
    rateSum: (keyId: string) => `${prefix}rl:{${keyId}}:sum`,
    /** Do-not-use list: hash MC number → JSON {reason, added_at, expires_at}. */
    doNotUse: `${prefix}dnu`,
    /** Counter bumped on every do-not-use change; replicas reload the list when it moves. */
    doNotUseEpoch: `${prefix}dnu:epoch`,
    /**
     * Decision records (src/decisions): hash per (minute, shard) of decision id → compact record, expiring after
     * the retention window. The tag is the whole bucket, so one bucket's HSET + EXPIRE touch one slot and the
     * 16 shards of a minute spread over the cluster. Shard = the decision id's last hex digit.
     */
    decisionBucket: (minute: number, shard: string) => `${prefix}dec:{${minute.toString(36)}.${shard}}`,
    /** String: evidence shared by every decision on one (snapshot, MC) with the same rule set and reasons. */
    decisionEvidence: (snapshotVersion: string, mc: string, variant: string) => `${prefix}dec:ev:{${snapshotVersion}:${mc}}:${variant}`,
    /** String (JSON SnapshotMeta): a snapshot's manifest, kept indefinitely (never deleted with the snapshot). */
    snapshotManifest: (version: string) => `${prefix}manifest:{${version}}`,
  } as const;
}

export type RedisKeys = ReturnType<typeof redisKeys>;
