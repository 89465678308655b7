// Every Redis key this service owns, built in one place under the configured prefix (batch job keys live in
// src/batch/keys.ts and use the same scheme through `tagged`).
//
// Hash tags (Redis Cluster hashes only the text between the first { and }), chosen so that every multi-key
// command, MULTI and Lua script touches ONE slot:
//   {ctl}      control plane: snapshot pointer + metas + version sets + ingest lock, rule sets, API key records +
//              index + epoch, the do-not-use hash + change log + epoch, the deployment mark. The state poll reads
//              its five keys with one MGET; the snapshot flip, key saves and DNU changes are single-slot MULTI/Lua.
//              Small and read once per STATE_POLL_MS per replica, so one slot carries it easily.
//   {<key id>} one API key's rate window (the draw script's two keys) and its active batch slot.
//   {<job id>} one batch job's record, rows, report blocks and chunk stream (the job scripts' keys).
//   {jobs}     the batch job index, the active-job set and the announce stream (submitted in one MULTI).
//   (none)     carrier buckets: deliberately untagged, so a snapshot's 16,384 buckets spread over every slot
//              and a big snapshot is sharded across the masters. Only ever touched one key per command
//              (src/redis/keyed-batch.ts groups them per node).
// The prefix itself may not contain braces (config), so the tag is always the one written here.

/** A key under the prefix whose slot is chosen by `tag`. */
export function tagged(prefix: string, tag: string, rest: string): string {
  return `${prefix}{${tag}}:${rest}`;
}

/** Carrier hashes are split into this many buckets per snapshot version so each stays a compact listpack. */
export const CARRIER_BUCKETS = 16_384;

export function carrierBucket(mc: string): number {
  // MC numbers are dense sequential integers, so the number itself spreads evenly over buckets.
  return Number(mc) % CARRIER_BUCKETS;
}

/** Hashes of a snapshot version's shared-contact index (src/identity/shared-index.ts); untagged like the carrier buckets. */
export const SHARED_CONTACT_BUCKETS = 1024;

export function redisKeys(prefix: string) {
  const ctl = (rest: string) => tagged(prefix, 'ctl', rest);
  return {
    /** String: the version id of the snapshot being served. */
    snapshotCurrent: ctl('snapshot:current'),
    /** String (JSON SnapshotMeta) of one version; in the control slot so the flip writes it atomically. */
    snapshotMeta: (version: string) => ctl(`snapshot:${version}:meta`),
    /** String: bitmap of the MCs a version's ingest found not eligible (bit mc), so the next ingest names who it unblocks. */
    snapshotNotEligible: (version: string) => ctl(`snapshot:${version}:not-eligible`),
    /** Hash bucket of carrier records: field = MC number, value = encoded record. Untagged: spreads over slots. */
    carrierBucket: (version: string, bucket: number) => `${prefix}snapshot:${version}:c:${bucket}`,
    /** Hash bucket of the version's shared-contact index: field = kind + value hash, value = carriers and some DOTs. */
    sharedContacts: (version: string, bucket: number) => `${prefix}snapshot:${version}:s:${bucket}`,
    /** String: a version's entries of one watch list (brotli, src/ingest/list-diff.ts); untagged, removed with the version. */
    snapshotListEntries: (version: string, list: string) => `${prefix}snapshot:${version}:w:${list}`,
    /** Zset of versions being written (orphans after a crash) → start ms. */
    snapshotVersions: ctl('snapshot:versions'),
    /** Zset of replaced versions → removal due ms. */
    snapshotRetired: ctl('snapshot:versions:retired'),
    /** String {pid, host, at}: one ingest at a time. */
    ingestLock: ctl('snapshot:versions:lock'),
    /** Counter: the ingest fencing token, INCR'd by every lock acquisition; the flip checks it (snapshot-flip.lua). */
    ingestFence: ctl('snapshot:versions:fence'),
    /** String: the snapshot sweeper's lease (its token); one sweeper at a time (snapshot-sweep.lua). */
    snapshotSweeper: ctl('snapshot:versions:sweeper'),
    /** Counter for rule set versions. */
    rulesetSeq: ctl('ruleset:seq'),
    /** String: current rule set version. */
    rulesetCurrent: ctl('ruleset:current'),
    /** String (JSON PublishedRuleSet). */
    ruleset: (version: number) => ctl(`ruleset:${version}`),
    /** Hash: one API key record (control slot: a save, the index and the epoch change in one MULTI). */
    apiKey: (id: string) => ctl(`key:${id}`),
    /** Set of all key ids (for `keys list`, never on a request path). */
    apiKeyIndex: ctl('keys'),
    /** Counter bumped on every key change; replicas drop their key cache when it moves. */
    apiKeyEpoch: ctl('keys:epoch'),
    /** Sliding-window log of one key's budget draws (sorted set) and its running sum. */
    rateLog: (keyId: string) => tagged(prefix, keyId, 'rl:log'),
    rateSum: (keyId: string) => tagged(prefix, keyId, 'rl:sum'),
    /** Do-not-use list: hash MC number → JSON {reason, added_at, expires_at}. */
    doNotUse: ctl('dnu'),
    /** Stream of do-not-use changes (op, mc, entry, prev); replicas apply the entries after their epoch. */
    doNotUseLog: ctl('dnu:log'),
    /** String: id of the newest change-log entry (the list's epoch); replicas poll it. */
    doNotUseEpoch: ctl('dnu:epoch'),
    /**
     * String (JSON {initialised_at, by}): this deployment has been set up. Written with the first key, rule
     * set, DNU change or snapshot; if Redis answers without it, Redis lost its data (src/state/live-state.ts).
     */
    deploymentMark: ctl('deployment'),
    /**
     * Decision records (src/decisions): hash per second of decision time, decision id → compact record, expiring
     * after the retention window. One bucket per second means one HSET per event-loop turn carries every record
     * of the turn; tagged by the bucket itself, so consecutive seconds land on different slots and a day's
     * records spread over every master (at 50k checks/s one bucket holds ~15 MB).
     */
    decisionBucket: (second: number) => tagged(prefix, `dec:${second.toString(36)}`, 'records'),
    /** What every decisionBucket key starts with (for SCAN by tools and benchmarks, never a request path). */
    decisionBucketsHead: `${prefix}{dec:`,
    /** String: the decision archiver's lease (one archiver writes the hash chain at a time). */
    decisionArchiverLease: ctl('decisions:archiver'),
    /** String: the last archive segment (chain seq) whose seconds were evicted from Redis. */
    decisionEvictedSeq: ctl('decisions:evicted-seq'),
    /** String: the last archive segment (chain seq) checked against DECISION_ARCHIVE_YEARS. */
    decisionPrunedSeq: ctl('decisions:pruned-seq'),
    /** Set: archive segments past DECISION_ARCHIVE_YEARS kept for a legal hold (checked again at each prune). */
    decisionHeldSeqs: ctl('decisions:held-seqs'),
    /** String: evidence shared by every decision on one (snapshot, MC) with the same rule set and reasons. */
    decisionEvidence: (snapshotVersion: string, mc: string, variant: string) => tagged(prefix, `dev:${snapshotVersion}:${mc}`, variant),
    /** String (JSON SnapshotMeta): a snapshot's manifest, kept indefinitely (never deleted with the snapshot). */
    snapshotManifest: (version: string) => tagged(prefix, `manifest:${version}`, 'meta'),
  } as const;
}

export type RedisKeys = ReturnType<typeof redisKeys>;
