// Redis keys of the monitoring feature, all under the service prefix and built with the same `tagged` scheme as
// src/store/keys.ts, so every multi-key step stays in one Redis Cluster slot:
//   {mon:<account>}  one account's watch list, event stream and webhook endpoints (+ each endpoint's delivery
//                    state, log and lease). Commands for one account never leave its slot.
//   {monw:<shard>}   the carrier side, sharded by MC number (WATCH_SHARDS): per carrier the set of accounts
//                    watching it (the reverse index the fan-out reads), the watched carriers of the shard, their
//                    last known verdicts (the baseline changes are measured against), the per-account verdicts
//                    of accounts whose verdict differs (an account policy, overrides) and the time schedule.
//                    Sharded so a fan-out for many carriers spreads over the masters; every read names one key.
//   {mon}            the small global control part: accounts with monitoring, endpoint index, detector state
//                    (with the policy versions and override pairs it has processed) and the detector's lease.
import { createHash } from 'node:crypto';
import { tagged } from '../store/keys.js';

export const WATCH_SHARDS = 64;

export function shardOf(mc: string): number {
  return Number(mc) % WATCH_SHARDS;
}

/** Accounts are free text chosen by the operator; anything that could break a hash tag is hashed. */
function accountTag(account: string): string {
  return /^[A-Za-z0-9._-]{1,64}$/.test(account) ? account : `h${createHash('sha256').update(account).digest('hex').slice(0, 24)}`;
}

/** The field of one account's baseline in its carrier's shard (`accountBaseline`); MC numbers hold no colon. */
export function accountBaselineField(mc: string, account: string): string {
  return `${mc}:${account}`;
}

export function monitoringKeys(prefix: string) {
  const acct = (account: string, rest: string) => tagged(prefix, `mon:${accountTag(account)}`, rest);
  const shard = (index: number, rest: string) => tagged(prefix, `monw:${index}`, rest);
  const ctl = (rest: string) => tagged(prefix, 'mon', rest);
  return {
    /** Zset MC → MC as a number: the account's watch list, in MC order (pagination by score). */
    watchList: (account: string) => acct(account, 'watch'),
    /** Hash MC → JSON {added_at, ref}: when and with what reference the account added it. */
    watchMeta: (account: string) => acct(account, 'watch:meta'),
    /** Stream of the account's events (pull feed, webhook source); trimmed by MINID to the retention window. */
    events: (account: string) => acct(account, 'events'),
    /** Hash endpoint id → JSON endpoint record (secrets included: they are needed to sign). */
    webhooks: (account: string) => acct(account, 'webhooks'),
    /** Hash: one endpoint's delivery state (cursor, attempt, next attempt, first failure). */
    webhookState: (account: string, id: string) => acct(account, `wh:${id}:state`),
    /** List (newest first, capped): one endpoint's delivery log. */
    webhookLog: (account: string, id: string) => acct(account, `wh:${id}:log`),
    /** Set: events past the cursor already delivered (parallel carriers ahead of a failed one). */
    webhookAhead: (account: string, id: string) => acct(account, `wh:${id}:ahead`),
    /** List of stream ids asked to be delivered again (replay), oldest first. */
    webhookReplay: (account: string, id: string) => acct(account, `wh:${id}:replay`),
    /** Set of the stream ids in the replay list (each is queued at most once). */
    webhookReplayIds: (account: string, id: string) => acct(account, `wh:${id}:replay:ids`),
    /** String with a TTL: the worker currently delivering for the endpoint. */
    webhookLease: (account: string, id: string) => acct(account, `wh:${id}:lease`),
    /** Set of accounts watching one carrier (the reverse index). */
    watchers: (mc: string) => shard(shardOf(mc), `a:${mc}`),
    /** Set of the carriers of a shard with at least one watcher. */
    watchedCarriers: (index: number) => shard(index, 'carriers'),
    /** Hash MC → JSON VerdictSummary: the verdict last observed for the carrier. */
    baseline: (index: number) => shard(index, 'baseline'),
    /**
     * Hash `<MC>:<account>` → JSON VerdictSummary: the verdict last observed for one account watching the carrier,
     * kept only while that account decides differently from the carrier-level baseline (it has a policy, or
     * overrides for the carrier). Every other watcher shares `baseline`.
     */
    accountBaseline: (index: number) => shard(index, 'abaseline'),
    /** Zset MC → ms: when the carrier's verdict may next change by the passing of time alone. */
    schedule: (index: number) => shard(index, 'schedule'),
    /** String: the last identity change stream entry turned into identity.changed events (src/monitoring/identity-events.ts). */
    identityCursor: ctl('identity:cursor'),
    /** Set of carriers newly watched that still need a baseline (no event for the first observation). */
    fresh: (index: number) => shard(index, 'fresh'),
    /** Set of accounts that watch carriers or have endpoints (screening-degraded events go to all of them). */
    accounts: ctl('accounts'),
    /** Set of `account<TAB>endpoint id` of every endpoint, for the delivery workers. */
    endpoints: ctl('endpoints'),
    /** Hash: what the detector has processed (snapshot version, rule set version, DNU epoch, degraded). */
    detector: ctl('detector'),
    /** Hash account → policy version: the account policies the detector has processed. */
    detectorPolicies: ctl('detector:policies'),
    /** Hash JSON [account, MC] → override ids: the pairs covered by active overrides the detector has processed. */
    detectorOverrides: ctl('detector:overrides'),
    /** String with a TTL: the worker that runs change detection (one at a time). */
    leader: ctl('leader'),
  } as const;
}

export type MonitoringKeys = ReturnType<typeof monitoringKeys>;
