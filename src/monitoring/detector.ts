// Change detection, run by ONE worker at a time (a leader lease). Each tick compares what the service serves now
// (LiveState: snapshot, rule set; the do-not-use epoch; the clock) with what the detector processed last
// (kept in Redis, so a restart resumes), and re-decides only carriers that someone watches and that may have
// changed:
//   snapshot flip   the watched carriers' encoded records in the old and new version are compared (string
//                   equality, no decoding); only the ones that differ are decided again
//   do-not-use      the change log entries after the processed epoch name the carriers
//   rule set        every watched carrier (new rules may change any verdict), once
//   time            the schedule's due carriers (src/monitoring/schedule.ts)
// Each carrier is decided once with assess() (never per account); the verdict is compared with its baseline,
// and only a change is fanned out: per watching account a decision record (through assess()'s per-account step,
// forAsker) and the events. Baselines move
// after the events are stored, so a crash in between re-emits (at least once) rather than loses a change.
// While verdicts are withheld (stale or missing required source, no rule set) nothing is diffed: each account
// gets one screening.degraded event, and screening.restored plus a full re-check when it recovers.
import { randomBytes } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import type { CarrierLookup, CarrierRecord, SnapshotMeta } from '../core/carrier.js';
import { assess, forAsker, NO_ASKER } from '../core/assess.js';
import { degradedReasons, type Decision } from '../core/decide.js';
import type { PublishedRuleSet } from '../core/ruleset.js';
import { type DecisionRecorder, toVerdict } from '../decisions/index.js';
import type { Logger } from '../log.js';
import type { RedisClient } from '../redis/connection.js';
import { sendKeyed, type KeyedCommand } from '../redis/keyed-batch.js';
import { luaScripts } from '../redis/scripts.js';
import { doNotUseIndex } from '../state/do-not-use.js';
import type { LiveState } from '../state/live-state.js';
import { decodeCarrier } from '../store/carrier-codec.js';
import { readDoNotUseLog } from '../store/do-not-use.js';
import { carrierBucket, type RedisKeys } from '../store/keys.js';
import type { EventStore } from './event-store.js';
import {
  changeEvents, parseSummary, screeningEvent, summarise, verdictChanged, type MonitoringEvent, type Trigger, type VerdictSummary,
} from './events-model.js';
import { shardOf, WATCH_SHARDS, type MonitoringKeys } from './keys.js';
import type { MonitoringMetrics } from './metrics.js';
import { nextChangeAt } from './schedule.js';
import type { WatchListStore } from './watchlist.js';

/** Carriers decided per round trip group. */
const PAGE = 2000;
const DNU_LOG_PAGE = 5000;

export interface DetectorOptions {
  redis: RedisClient;
  keys: RedisKeys;
  mkeys: MonitoringKeys;
  state: Pick<LiveState, 'snapshot' | 'ruleset' | 'redisUp'>;
  watch: WatchListStore;
  events: EventStore;
  recorder: DecisionRecorder | null;
  maxDataAgeSeconds: number;
  log: Logger;
  now?: () => number;
  metrics?: MonitoringMetrics;
}

export interface TickStats {
  decided: number;
  changed: number;
  events: number;
  skipped?: string;
  /** Milliseconds spent finding candidates (record diff, DNU log, schedule) and fanning changes out. */
  diffMs?: number;
  fanOutMs?: number;
}

/** When a live do-not-use entry lapses (its expires_at), if that is still ahead: a time-based change too. */
function dnuExpiry(raw: string | null | undefined, nowMs: number): number | null {
  if (!raw) return null;
  try {
    const expires = (JSON.parse(raw) as { expires_at?: unknown }).expires_at;
    const ms = typeof expires === 'string' && expires !== '' ? Date.parse(expires) : Number.NaN;
    return Number.isFinite(ms) && ms > nowMs ? ms : null;
  } catch {
    return null;
  }
}

function earliest(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  return b === null ? a : Math.min(a, b);
}

function safeDecode(mc: string, encoded: string | null): CarrierLookup | null {
  try {
    return decodeCarrier(mc, encoded);
  } catch {
    return null;
  }
}

export class ChangeDetector {
  private readonly now: () => number;

  constructor(private readonly options: DetectorOptions) {
    this.now = options.now ?? Date.now;
  }

  async tick(): Promise<TickStats> {
    const { redis, keys, mkeys, state } = this.options;
    const stats: TickStats = { decided: 0, changed: 0, events: 0 };
    if (!state.redisUp) return { ...stats, skipped: 'backend' };
    const nowMs = this.now();
    const { snapshot, ruleset } = state;
    const processed = await redis.hgetall(mkeys.detector);
    const degraded = degradedReasons({ backendAvailable: true, ruleset, snapshot, maxDataAgeSeconds: this.options.maxDataAgeSeconds, nowMs });
    if (degraded.length > 0 || !snapshot || !ruleset) {
      const marker = degraded.join(',') || 'unavailable';
      if (processed.degraded !== marker) {
        stats.events += await this.broadcast('screening.degraded', degraded, nowMs, ruleset, snapshot);
        await redis.hset(mkeys.detector, 'degraded', marker);
      }
      return { ...stats, skipped: 'degraded' };
    }
    let full: Trigger | null = null;
    if (processed.degraded) {
      stats.events += await this.broadcast('screening.restored', [], nowMs, ruleset, snapshot);
      full = 'restored';
    }
    const dnuEpoch = (await redis.get(keys.doNotUseEpoch)) ?? '';
    const candidates = new Map<string, Trigger>();
    const rulesetVersion = String(ruleset.version);
    if (processed.ruleset !== undefined && processed.ruleset !== rulesetVersion) full = 'ruleset';
    const first = processed.snapshot === undefined;
    if (!first && processed.snapshot !== snapshot.version && full === null) {
      const diffStarted = performance.now();
      const changed = await this.diffSnapshots(processed.snapshot ?? '', snapshot.version);
      stats.diffMs = Math.round(performance.now() - diffStarted);
      if (changed === null) full = 'snapshot';
      else for (const mc of changed) candidates.set(mc, 'snapshot');
    }
    if (!first && (processed.dnu ?? '') !== dnuEpoch && full === null) {
      const changed = await this.doNotUseChanges(processed.dnu ?? '', dnuEpoch);
      if (changed === null) full = 'do_not_use';
      else for (const mc of changed) if (!candidates.has(mc)) candidates.set(mc, 'do_not_use');
    }
    const context = { snapshot, ruleset, nowMs };
    if (first) {
      // First run: baselines only (no history to compare with), for every watched carrier. The newly-watched
      // sets are emptied first: the full pass covers those, and a watch added during it lands there again.
      await sendKeyed(redis, Array.from({ length: WATCH_SHARDS }, (_, shard) => ['del', mkeys.fresh(shard)] as const));
      await this.forEachWatched(async (mcs) => this.process(mcs.map((mc) => [mc, null]), context, stats));
    } else if (full !== null) {
      const trigger = full;
      await this.forEachWatched(async (mcs) => this.process(mcs.map((mc) => [mc, trigger]), context, stats));
    } else {
      for (const mc of await this.dueCarriers(nowMs)) if (!candidates.has(mc)) candidates.set(mc, 'time');
      const entries = [...candidates.entries()];
      for (let start = 0; start < entries.length; start += PAGE) await this.process(entries.slice(start, start + PAGE), context, stats);
      await this.baselineFresh(context, stats);
    }
    await redis.hset(mkeys.detector, 'snapshot', snapshot.version, 'ruleset', rulesetVersion, 'dnu', dnuEpoch, 'degraded', '');
    return stats;
  }

  /** Every watched carrier, a page at a time. */
  private async forEachWatched(visit: (mcs: string[]) => Promise<void>): Promise<void> {
    for (let shard = 0; shard < WATCH_SHARDS; shard++) {
      let cursor = '0';
      do {
        const [next, mcs] = await this.options.redis.sscan(this.options.mkeys.watchedCarriers(shard), cursor, 'COUNT', PAGE);
        cursor = next;
        if (mcs.length > 0) await visit(mcs);
      } while (cursor !== '0');
    }
  }

  /** Watched carriers whose stored record differs between the two versions; null when the old one is gone. */
  private async diffSnapshots(oldVersion: string, newVersion: string): Promise<string[] | null> {
    const { redis, keys } = this.options;
    if (oldVersion === '' || (await redis.exists(keys.snapshotMeta(oldVersion))) === 0) return null;
    const changed: string[] = [];
    await this.forEachWatched(async (mcs) => {
      const replies = await sendKeyed(redis, mcs.flatMap((mc) => [
        ['hget', keys.carrierBucket(oldVersion, carrierBucket(mc)), mc] as const,
        ['hget', keys.carrierBucket(newVersion, carrierBucket(mc)), mc] as const,
      ]));
      mcs.forEach((mc, index) => {
        if (replies[2 * index] !== replies[2 * index + 1]) changed.push(mc);
      });
    });
    return changed;
  }

  /** Carriers named by the do-not-use log after `from`; null when the log no longer reaches back that far. */
  private async doNotUseChanges(from: string, to: string): Promise<Set<string> | null> {
    if (from === '') return null;
    const changed = new Set<string>();
    let at = from;
    while (at !== to) {
      const entries = await readDoNotUseLog(this.options.redis, this.options.keys, at, DNU_LOG_PAGE);
      if (entries.length === 0 || entries[0]?.prev !== at) return null;
      for (const entry of entries) {
        changed.add(entry.mc);
        at = entry.id;
      }
    }
    return changed;
  }

  private async dueCarriers(nowMs: number): Promise<string[]> {
    const { redis, mkeys } = this.options;
    const replies = await sendKeyed(redis, Array.from({ length: WATCH_SHARDS }, (_, shard) =>
      ['zrangebyscore', mkeys.schedule(shard), '-inf', nowMs, 'LIMIT', 0, PAGE] as const));
    return replies.flatMap((reply) => reply as string[]);
  }

  /** Newly watched carriers: decided once to set their baseline (and schedule), no event. */
  private async baselineFresh(context: DecideContext, stats: TickStats): Promise<void> {
    const { redis, mkeys } = this.options;
    const replies = await sendKeyed(redis, Array.from({ length: WATCH_SHARDS }, (_, shard) => ['spop', mkeys.fresh(shard), PAGE] as const));
    const mcs = replies.flatMap((reply) => (reply as string[] | null) ?? []);
    for (let start = 0; start < mcs.length; start += PAGE) {
      await this.process(mcs.slice(start, start + PAGE).map((mc) => [mc, null]), context, stats, true);
    }
  }

  /**
   * Decides each carrier once; compares with its baseline. trigger null = baseline only (no event). With
   * `onlyMissing`, a carrier that already has a baseline is left alone (a re-watch must not hide a change).
   */
  private async process(entries: Array<[string, Trigger | null]>, context: DecideContext, stats: TickStats, onlyMissing = false): Promise<void> {
    if (entries.length === 0) return;
    const { redis, keys, mkeys } = this.options;
    const mcs = entries.map(([mc]) => mc);
    const [encoded, listed, baselines] = await Promise.all([
      sendKeyed(redis, mcs.map((mc) => ['hget', keys.carrierBucket(context.snapshot.version, carrierBucket(mc)), mc] as const)),
      redis.hmget(keys.doNotUse, ...mcs),
      sendKeyed(redis, mcs.map((mc) => ['hget', mkeys.baseline(shardOf(mc)), mc] as const)),
    ]);
    const doNotUse = doNotUseIndex(Object.fromEntries(mcs.flatMap((mc, index) => {
      const entry = listed[index];
      return entry === null || entry === undefined ? [] : [[mc, entry]];
    })));
    const writes: KeyedCommand[] = [];
    const changes: Array<{ mc: string; trigger: Trigger; before: VerdictSummary; after: VerdictSummary; decision: Decision; record: CarrierRecord | null }> = [];
    entries.forEach(([mc, trigger], index) => {
      const before = parseSummary(baselines[index] as string | null);
      if (onlyMissing && before !== null) return;
      const lookup = safeDecode(mc, (encoded[index] as string | null) ?? null);
      const decision = assess({
        mc, lookup, snapshot: context.snapshot, ruleset: context.ruleset, doNotUse, backendAvailable: true,
        maxDataAgeSeconds: this.options.maxDataAgeSeconds, nowMs: context.nowMs,
      }, NO_ASKER);
      stats.decided += 1;
      // A degraded verdict here (an undecodable record) is not a change of the carrier: keep the baseline.
      if (decision.degraded) return;
      const record = lookup?.kind === 'found' ? lookup.record : null;
      const shard = shardOf(mc);
      const next = earliest(record ? nextChangeAt(record, context.ruleset.rules, context.nowMs) : null, dnuExpiry(listed[index], context.nowMs));
      writes.push(next === null ? ['zrem', mkeys.schedule(shard), mc] : ['zadd', mkeys.schedule(shard), next, mc]);
      const after = summarise(decision);
      if (before === null || trigger === null) {
        if (before === null || verdictChanged(before, after)) writes.push(['hset', mkeys.baseline(shard), mc, JSON.stringify(after)]);
        return;
      }
      if (!verdictChanged(before, after)) return;
      changes.push({ mc, trigger, before, after, decision, record });
      writes.push(['hset', mkeys.baseline(shard), mc, JSON.stringify(after)]);
    });
    if (changes.length > 0) {
      stats.changed += changes.length;
      const fanOutStarted = performance.now();
      stats.events += await this.fanOut(changes, context);
      stats.fanOutMs = (stats.fanOutMs ?? 0) + Math.round(performance.now() - fanOutStarted);
    }
    await sendKeyed(redis, writes);
  }

  private async fanOut(changes: Array<{ mc: string; trigger: Trigger; before: VerdictSummary; after: VerdictSummary; decision: Decision; record: CarrierRecord | null }>, context: DecideContext): Promise<number> {
    const { watch, recorder, events } = this.options;
    const watchers = await watch.watchersOf(changes.map((change) => change.mc));
    const batch: Array<{ account: string; event: MonitoringEvent }> = [];
    const records: Promise<boolean>[] = [];
    recorder?.noteSnapshot(context.snapshot);
    for (const change of changes) {
      for (const account of watchers.get(change.mc) ?? []) {
        // A real decision record per account: GET /v1/decisions/{id} answers only the account that owns it.
        const reference = `monitoring:${change.trigger}`;
        const decision = forAsker(change.decision, { mc: change.mc, nowMs: context.nowMs }, { account, reference });
        const verdict = toVerdict(decision, change.mc, context.nowMs, false);
        const firstId = uuidv7();
        if (recorder) {
          records.push(recorder.record(verdict, {
            kind: 'check', keyId: 'monitoring', account, requestId: firstId, reference, jobId: null, row: null,
          }));
        }
        let pendingFirst: string | null = firstId;
        const newId = () => {
          const id = pendingFirst ?? uuidv7();
          pendingFirst = null;
          return id;
        };
        for (const event of changeEvents(change.before, change.after, {
          mc: change.mc, trigger: change.trigger, observedMs: context.nowMs, decisionId: verdict.decision_id, newId, record: change.record,
        })) batch.push({ account, event });
      }
    }
    const written = await Promise.all(records);
    if (written.some((ok) => !ok)) throw new Error('decision records of monitoring events could not be written; will retry');
    await events.append(batch, context.nowMs);
    this.counted(batch);
    return batch.length;
  }

  private counted(batch: ReadonlyArray<{ event: MonitoringEvent }>): void {
    const metrics = this.options.metrics;
    if (metrics) for (const { event } of batch) metrics.eventStored(event.type);
  }

  private async broadcast(type: 'screening.degraded' | 'screening.restored', reasons: Decision['reasons'], nowMs: number,
    ruleset: PublishedRuleSet | null, snapshot: SnapshotMeta | null): Promise<number> {
    const accounts = await this.options.redis.smembers(this.options.mkeys.accounts);
    const batch = accounts.map((account) => ({
      account,
      event: screeningEvent(type, reasons, { id: uuidv7(), observedMs: nowMs, rulesetVersion: ruleset?.version ?? null, dataAsOf: snapshot?.data_as_of ?? null }),
    }));
    await this.options.events.append(batch, nowMs);
    this.counted(batch);
    this.options.log.warn({ event: type, accounts: accounts.length, reasons }, `monitoring: ${type}`);
    return batch.length;
  }
}

interface DecideContext {
  snapshot: SnapshotMeta;
  ruleset: PublishedRuleSet;
  nowMs: number;
}

/** Runs the detector on one worker at a time: a lease in Redis, renewed each tick, taken over when it lapses. */
export class DetectorLoop {
  private readonly token = randomBytes(8).toString('hex');
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private busy: Promise<void> = Promise.resolve();

  constructor(private readonly detector: ChangeDetector, private readonly redis: RedisClient, private readonly leaderKey: string,
    private readonly accountsKey: string, private readonly pollMs: number, private readonly log: Logger,
    private readonly metrics?: MonitoringMetrics) {}

  start(): void {
    this.running = true;
    const loop = async () => {
      if (!this.running) return;
      this.busy = this.once().then(() => undefined, (error: unknown) => {
        this.log.warn({ err: error }, 'monitoring detector tick failed; retrying');
      });
      await this.busy;
      if (this.running) this.timer = setTimeout(() => void loop(), this.pollMs);
    };
    void loop();
  }

  async once(): Promise<TickStats | null> {
    // Nothing to watch for: leave Redis untouched (no lease, no state) until the first account uses monitoring.
    if ((await this.redis.scard(this.accountsKey)) === 0) return null;
    const leaseMs = Math.max(10_000, this.pollMs * 20);
    const held = await this.redis.set(this.leaderKey, this.token, 'PX', leaseMs, 'NX');
    if (held !== 'OK' && !(await luaScripts.leaseRenew(this.redis, this.leaderKey, this.token, leaseMs))) return null;
    // A tick can outlast the lease (a first observation or a rule set change over a million pairs): keep it
    // renewed meanwhile, so no second worker starts detecting (and emitting) the same changes.
    const renew = setInterval(() => {
      void luaScripts.leaseRenew(this.redis, this.leaderKey, this.token, leaseMs).catch(() => false);
    }, Math.floor(leaseMs / 3));
    const started = performance.now();
    try {
      return await this.detector.tick();
    } finally {
      clearInterval(renew);
      this.metrics?.tickTook(performance.now() - started);
    }
  }

  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    await this.busy;
    await luaScripts.leaseRelease(this.redis, this.leaderKey, this.token).catch(() => false);
  }
}
