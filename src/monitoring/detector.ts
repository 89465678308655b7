// Change detection, run by ONE worker at a time (src/monitoring/detector-loop.ts). Each tick compares what the
// service serves now (LiveState: snapshot, rule set; the do-not-use epoch; the account policies and overrides; the
// clock) with what the detector processed last (kept in Redis, so a restart resumes), and re-decides only
// carriers that someone watches and that may have changed:
//   snapshot flip   the watched carriers' encoded records in the old and new version are compared (string
//                   equality, no decoding); only the ones that differ are decided again
//   do-not-use      the change log entries after the processed epoch name the carriers
//   rule set        every watched carrier (new rules may change any verdict), once
//   time            the schedule's due carriers (src/monitoring/schedule.ts, and overrides' expiries)
//   policy          every carrier watched by an account whose policy version moved, for that account only
//   override        each (account, carrier) whose active overrides or clearances changed, for that account only
// Each carrier is decided once with assess() for every account that decides like the global rule set and has no
// overrides for it: they share the carrier's baseline, and a change is fanned out to them. An account with its
// own policy, or with overrides for the carrier, is decided on its own and compared with its own baseline (kept
// only for such pairs, src/monitoring/account-view.ts). Baselines move after the events are stored (the
// per-account ones first), so a crash in between re-emits (at least once) rather than loses a change. While
// verdicts are withheld (stale or missing required source, no rule set) nothing is diffed: each account gets one
// screening.degraded event, and screening.restored plus a full re-check when it recovers.
import { v7 as uuidv7 } from 'uuid';
import type { CarrierLookup, CarrierRecord, SnapshotMeta } from '../core/carrier.js';
import { assess, forAsker, NO_ASKER, type DoNotUseView } from '../core/assess.js';
import { degradedReasons, type Decision } from '../core/decide.js';
import type { PublishedRuleSet } from '../core/ruleset.js';
import type { Verdict } from '../core/verdict.js';
import { type DecisionRecorder, toVerdict } from '../decisions/index.js';
import type { Logger } from '../log.js';
import type { RedisClient } from '../redis/connection.js';
import { sendKeyed, type KeyedCommand } from '../redis/keyed-batch.js';
import { doNotUseIndex } from '../state/do-not-use.js';
import type { LiveState } from '../state/live-state.js';
import { decodeCarrier } from '../store/carrier-codec.js';
import { carrierBucket, type RedisKeys } from '../store/keys.js';
import { AccountViewLoader, changedPairs, changedPolicies, type AccountSources, type AccountView } from './account-view.js';
import { Candidates, PAGE } from './candidates.js';
import type { EventStore } from './event-store.js';
import {
  changeEvents, parseSummary, screeningEvent, summarise, summariseVerdict, verdictChanged, type MonitoringEvent, type Trigger, type VerdictSummary,
} from './events-model.js';
import { accountBaselineField, shardOf, type MonitoringKeys } from './keys.js';
import type { MonitoringMetrics } from './metrics.js';
import { nextChangeAt } from './schedule.js';
import type { WatchListStore } from './watchlist.js';

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
  /** Account policies and overrides (absent: every account decides like the global rule set). */
  accounts?: AccountSources;
  /** identity.changed events (src/monitoring/identity-events.ts), emitted whatever the verdicts do. */
  identity?: { emit(nowMs: number): Promise<number> };
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

interface DecideContext {
  snapshot: SnapshotMeta;
  ruleset: PublishedRuleSet;
  nowMs: number;
  view: AccountView;
}

/** A change to announce: to the carrier's shared watchers (`verdict` null), or to one account deciding on its own. */
interface Change {
  mc: string;
  trigger: Trigger;
  before: VerdictSummary;
  after: VerdictSummary;
  decision: Decision;
  record: CarrierRecord | null;
  /** The accounts to tell; null: every watcher (read at fan-out). */
  accounts: readonly string[] | null;
  /** The account's own verdict (its policy, its overrides), when the change is one account's. */
  verdict: Verdict | null;
}

/** What one tick queues for Redis, sent in this order after the events are stored. */
interface Writes {
  /** Per-account baselines first: a crash after them re-announces shared changes, never an account's. */
  own: KeyedCommand[];
  shared: KeyedCommand[];
}

/** The carrier's facts as read for one page. */
interface Facts {
  lookup: CarrierLookup | null;
  listed: string | null;
  doNotUse: DoNotUseView;
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

function asMap<V>(hash: Record<string, string>, decode: (value: string) => V): Map<string, V> {
  return new Map(Object.entries(hash).map(([key, value]) => [key, decode(value)]));
}

export class ChangeDetector {
  private readonly now: () => number;
  private readonly candidates: Candidates;
  private readonly views: AccountViewLoader;

  constructor(private readonly options: DetectorOptions) {
    this.now = options.now ?? Date.now;
    this.candidates = new Candidates(options.redis, options.keys, options.mkeys);
    this.views = new AccountViewLoader(options.accounts ?? {});
  }

  async tick(): Promise<TickStats> {
    const { redis, keys, mkeys, state } = this.options;
    const stats: TickStats = { decided: 0, changed: 0, events: 0 };
    if (!state.redisUp) return { ...stats, skipped: 'backend' };
    const nowMs = this.now();
    if (this.options.identity) stats.events += await this.options.identity.emit(nowMs);
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
    const [policiesDone, pairsDone] = await Promise.all([redis.hgetall(mkeys.detectorPolicies), redis.hgetall(mkeys.detectorOverrides)]);
    const processedPairs = asMap(pairsDone, String);
    const context: DecideContext = { snapshot, ruleset, nowMs, view: await this.views.load(ruleset, processedPairs) };
    const dnuEpoch = (await redis.get(keys.doNotUseEpoch)) ?? '';
    const candidates = new Map<string, Trigger>();
    const rulesetVersion = String(ruleset.version);
    if (processed.ruleset !== undefined && processed.ruleset !== rulesetVersion) full = 'ruleset';
    const first = processed.snapshot === undefined;
    if (!first && processed.snapshot !== snapshot.version && full === null) {
      const diffStarted = performance.now();
      const changed = await this.candidates.diffSnapshots(processed.snapshot ?? '', snapshot.version);
      stats.diffMs = Math.round(performance.now() - diffStarted);
      if (changed === null) full = 'snapshot';
      else for (const mc of changed) candidates.set(mc, 'snapshot');
    }
    if (!first && (processed.dnu ?? '') !== dnuEpoch && full === null) {
      const changed = await this.candidates.doNotUseChanges(processed.dnu ?? '', dnuEpoch);
      if (changed === null) full = 'do_not_use';
      else for (const mc of changed) if (!candidates.has(mc)) candidates.set(mc, 'do_not_use');
    }
    if (first) {
      // First run: baselines only (no history to compare with), for every watched carrier.
      await this.candidates.clearFresh();
      await this.candidates.forEachWatched(async (mcs) => this.process(mcs.map((mc) => [mc, null]), context, stats));
    } else if (full !== null) {
      const trigger = full;
      await this.candidates.forEachWatched(async (mcs) => this.process(mcs.map((mc) => [mc, trigger]), context, stats));
    } else {
      for (const mc of await this.candidates.due(nowMs)) if (!candidates.has(mc)) candidates.set(mc, 'time');
      const entries = [...candidates.entries()];
      for (let start = 0; start < entries.length; start += PAGE) await this.process(entries.slice(start, start + PAGE), context, stats);
      // After the carriers: an account's own pairs then start from the carrier baselines just moved.
      await this.accountChanges(processed, asMap(policiesDone, Number), processedPairs, context, stats);
      await this.baselineFresh(context, stats);
    }
    await this.saveProcessed(context.view, policiesDone, processedPairs);
    await redis.hset(mkeys.detector, 'snapshot', snapshot.version, 'ruleset', rulesetVersion, 'dnu', dnuEpoch, 'degraded', '',
      'policy', context.view.policyEpoch ?? '', 'overrides', context.view.overrideEpoch ?? '');
    return stats;
  }

  /**
   * Policy publishes and override changes: the pairs of the accounts concerned, decided for them alone. Before the
   * detector first recorded what it processed of either (an upgrade), the pairs are baselined without events.
   */
  private async accountChanges(processed: Record<string, string>, policiesDone: ReadonlyMap<string, number>,
    pairsDone: ReadonlyMap<string, string>, context: DecideContext, stats: TickStats): Promise<void> {
    const { view } = context;
    const policyTrigger: Trigger | null = processed.policy === undefined ? null : 'policy';
    for (const account of changedPolicies(policiesDone, view.policyVersions)) {
      let after: string | null = null;
      do {
        const page = await this.options.watch.page(account, after, PAGE);
        await this.processPairs(page.items.map((item) => ({ account, mc: item.mc })), policyTrigger, context, stats);
        after = page.next;
      } while (after !== null);
    }
    const pairs = changedPairs(pairsDone, view.pairs);
    const overrideTrigger: Trigger | null = processed.overrides === undefined ? null : 'override';
    for (let start = 0; start < pairs.length; start += PAGE) await this.processPairs(pairs.slice(start, start + PAGE), overrideTrigger, context, stats);
  }

  /** Records the policy versions and override pairs this tick has processed ({mon} slot). */
  private async saveProcessed(view: AccountView, policiesDone: Record<string, string>, pairsDone: ReadonlyMap<string, string>): Promise<void> {
    const { redis, mkeys } = this.options;
    const versions = [...view.policyVersions].filter(([account, version]) => policiesDone[account] !== String(version));
    if (versions.length > 0) await redis.hset(mkeys.detectorPolicies, Object.fromEntries(versions));
    if (changedPairs(pairsDone, view.pairs).length === 0) return;
    const replace = redis.multi().del(mkeys.detectorOverrides);
    if (view.pairs.size > 0) replace.hset(mkeys.detectorOverrides, Object.fromEntries(view.pairs));
    await replace.exec();
  }

  /** Newly watched carriers: decided once to set their baselines (and schedule), no event. */
  private async baselineFresh(context: DecideContext, stats: TickStats): Promise<void> {
    const mcs = await this.candidates.takeFresh();
    for (let start = 0; start < mcs.length; start += PAGE) {
      await this.process(mcs.slice(start, start + PAGE).map((mc) => [mc, null]), context, stats, true);
    }
  }

  /** The carriers' records and do-not-use entries, one read per carrier. */
  private async readFacts(mcs: readonly string[], snapshot: SnapshotMeta): Promise<Facts[]> {
    const { redis, keys } = this.options;
    const [encoded, listed] = await Promise.all([
      sendKeyed(redis, mcs.map((mc) => ['hget', keys.carrierBucket(snapshot.version, carrierBucket(mc)), mc] as const)),
      redis.hmget(keys.doNotUse, ...mcs),
    ]);
    const doNotUse = doNotUseIndex(Object.fromEntries(mcs.flatMap((mc, index) => {
      const entry = listed[index];
      return entry === null || entry === undefined ? [] : [[mc, entry]];
    })));
    return mcs.map((mc, index) => ({ lookup: safeDecode(mc, (encoded[index] as string | null) ?? null), listed: listed[index] ?? null, doNotUse }));
  }

  private decide(mc: string, facts: Facts, context: DecideContext, ruleset: PublishedRuleSet, account: string | null): Decision {
    return assess({
      mc, lookup: facts.lookup, snapshot: context.snapshot, ruleset, doNotUse: facts.doNotUse, backendAvailable: true,
      maxDataAgeSeconds: this.options.maxDataAgeSeconds, nowMs: context.nowMs,
    }, account === null ? NO_ASKER : { account, reference: null });
  }

  /** The verdict as one account gets it: under its policy when it has one, then its overrides. */
  private verdictFor(account: string, mc: string, facts: Facts, context: DecideContext, shared: Decision): { decision: Decision; verdict: Verdict } {
    const ruleset = context.view.rulesetOf(account);
    const decision = ruleset === null ? forAsker(shared, { mc, nowMs: context.nowMs }, { account, reference: null }) : this.decide(mc, facts, context, ruleset, account);
    return { decision, verdict: context.view.apply(toVerdict(decision, mc, context.nowMs, false), account) };
  }

  /** When the account's own verdict of the carrier may next change by time alone (its rules, its overrides). */
  private ownNextChange(account: string, mc: string, record: CarrierRecord | null, context: DecideContext): number | null {
    const rules = context.view.rulesetOf(account)?.rules;
    return earliest(record && rules ? nextChangeAt(record, rules, context.nowMs) : null, context.view.overrideExpiry(account, mc, context.nowMs));
  }

  /**
   * One account's own verdict against the one it last saw (its own baseline, else the carrier's shared one):
   * queues the change, and its baseline's write (while it decides on its own) or removal (once it no longer does).
   */
  private settleOwn(pair: { account: string; mc: string; trigger: Trigger | null; own: VerdictSummary | null; shared: VerdictSummary | null },
    result: { decision: Decision; verdict: Verdict }, record: CarrierRecord | null, context: DecideContext, writes: Writes, changes: Change[]): void {
    const { account, mc, trigger, own, shared } = pair;
    const after = summariseVerdict(result.verdict);
    const key = this.options.mkeys.accountBaseline(shardOf(mc));
    const field = accountBaselineField(mc, account);
    if (!context.view.decidesOwn(account, mc)) {
      if (own !== null) writes.own.push(['hdel', key, field]);
    } else if (own === null || verdictChanged(own, after)) {
      writes.own.push(['hset', key, field, JSON.stringify(after)]);
    }
    const before = own ?? shared;
    if (trigger === null || before === null || !verdictChanged(before, after)) return;
    changes.push({ mc, trigger, before, after, decision: result.decision, record, accounts: [account], verdict: result.verdict });
  }

  /**
   * Decides each carrier once for its shared watchers and compares with its baseline; each watcher deciding on its
   * own is decided and compared apart. trigger null = baselines only (no event). With `onlyMissing`, a baseline
   * already there is left alone (a re-watch must not hide a change).
   */
  private async process(entries: Array<[string, Trigger | null]>, context: DecideContext, stats: TickStats, onlyMissing = false): Promise<void> {
    if (entries.length === 0) return;
    const { redis, mkeys } = this.options;
    const { view } = context;
    const mcs = entries.map(([mc]) => mc);
    const [facts, baselines, watchers] = await Promise.all([
      this.readFacts(mcs, context.snapshot),
      sendKeyed(redis, mcs.map((mc) => ['hget', mkeys.baseline(shardOf(mc)), mc] as const)),
      view.any ? this.options.watch.watchersOf(mcs) : Promise.resolve(null),
    ]);
    const ownAccounts = mcs.map((mc) => view.ownOf(mc, watchers?.get(mc) ?? []));
    const ownFields = ownAccounts.flatMap((accounts, index) => accounts.map((account) => [index, account] as const));
    const ownReplies = await sendKeyed(redis, ownFields.map(([index, account]) => {
      const mc = mcs[index] ?? '';
      return ['hget', mkeys.accountBaseline(shardOf(mc)), accountBaselineField(mc, account)] as const;
    }));
    const ownBaselines = new Map(ownFields.map(([index, account], at) => [`${index}:${account}`, parseSummary(ownReplies[at] as string | null)]));
    const writes: Writes = { own: [], shared: [] };
    const changes: Change[] = [];
    entries.forEach(([mc, trigger], index) => {
      const carrierFacts = facts[index] as Facts;
      const before = parseSummary(baselines[index] as string | null);
      const decision = this.decide(mc, carrierFacts, context, context.ruleset, null);
      stats.decided += 1;
      // A degraded verdict here (an undecodable record) is not a change of the carrier: keep the baselines.
      if (decision.degraded) return;
      const record = carrierFacts.lookup?.kind === 'found' ? carrierFacts.lookup.record : null;
      const shard = shardOf(mc);
      let next = earliest(record ? nextChangeAt(record, context.ruleset.rules, context.nowMs) : null, dnuExpiry(carrierFacts.listed, context.nowMs));
      const own = ownAccounts[index] ?? [];
      for (const account of own) {
        next = earliest(next, this.ownNextChange(account, mc, record, context));
        const ownBefore = ownBaselines.get(`${index}:${account}`) ?? null;
        if (onlyMissing && ownBefore !== null) continue;
        this.settleOwn({ account, mc, trigger, own: ownBefore, shared: before }, this.verdictFor(account, mc, carrierFacts, context, decision), record, context, writes, changes);
      }
      writes.shared.push(next === null ? ['zrem', mkeys.schedule(shard), mc] : ['zadd', mkeys.schedule(shard), next, mc]);
      if (onlyMissing && before !== null) return;
      const after = summarise(decision);
      if (before === null || trigger === null) {
        if (before === null || verdictChanged(before, after)) writes.shared.push(['hset', mkeys.baseline(shard), mc, JSON.stringify(after)]);
        return;
      }
      if (!verdictChanged(before, after)) return;
      const shared = watchers === null ? null : (watchers.get(mc) ?? []).filter((account) => !own.includes(account));
      changes.push({ mc, trigger, before, after, decision, record, accounts: shared, verdict: null });
      writes.shared.push(['hset', mkeys.baseline(shard), mc, JSON.stringify(after)]);
    });
    await this.announce(changes, context, stats);
    await sendKeyed(redis, writes.own);
    await sendKeyed(redis, writes.shared);
  }

  /**
   * Decides (account, carrier) pairs for the account alone: a policy publish (every carrier the account watches)
   * or an override change (the pair it covers). A pair the account no longer watches only loses its baseline.
   */
  private async processPairs(pairs: ReadonlyArray<{ account: string; mc: string }>, trigger: Trigger | null, context: DecideContext, stats: TickStats): Promise<void> {
    if (pairs.length === 0) return;
    const { redis, mkeys } = this.options;
    const mcs = pairs.map((pair) => pair.mc);
    const [facts, replies] = await Promise.all([
      this.readFacts(mcs, context.snapshot),
      sendKeyed(redis, pairs.flatMap(({ account, mc }) => [
        ['hget', mkeys.baseline(shardOf(mc)), mc] as const,
        ['hget', mkeys.accountBaseline(shardOf(mc)), accountBaselineField(mc, account)] as const,
        ['sismember', mkeys.watchers(mc), account] as const,
      ])),
    ]);
    const writes: Writes = { own: [], shared: [] };
    const changes: Change[] = [];
    pairs.forEach(({ account, mc }, index) => {
      const shared = parseSummary(replies[3 * index] as string | null);
      const own = parseSummary(replies[3 * index + 1] as string | null);
      if (replies[3 * index + 2] !== 1) {
        if (own !== null) writes.own.push(['hdel', mkeys.accountBaseline(shardOf(mc)), accountBaselineField(mc, account)]);
        return;
      }
      const pairFacts = facts[index] as Facts;
      const decision = this.decide(mc, pairFacts, context, context.ruleset, null);
      stats.decided += 1;
      if (decision.degraded) return;
      const record = pairFacts.lookup?.kind === 'found' ? pairFacts.lookup.record : null;
      // Not yet observed at all: the carrier's first observation (a fresh watch) sets the baselines silently.
      const silent = shared === null && own === null ? null : trigger;
      this.settleOwn({ account, mc, trigger: silent, own, shared }, this.verdictFor(account, mc, pairFacts, context, decision), record, context, writes, changes);
      const next = this.ownNextChange(account, mc, record, context);
      // LT: an earlier instant only; the carrier's next full decision sets the schedule over all its watchers.
      if (next !== null) writes.shared.push(['zadd', mkeys.schedule(shardOf(mc)), 'LT', next, mc]);
    });
    await this.announce(changes, context, stats);
    await sendKeyed(redis, writes.own);
    await sendKeyed(redis, writes.shared);
  }

  private async announce(changes: Change[], context: DecideContext, stats: TickStats): Promise<void> {
    if (changes.length === 0) return;
    stats.changed += changes.length;
    const fanOutStarted = performance.now();
    stats.events += await this.fanOut(changes, context);
    stats.fanOutMs = (stats.fanOutMs ?? 0) + Math.round(performance.now() - fanOutStarted);
  }

  private async fanOut(changes: Change[], context: DecideContext): Promise<number> {
    const { watch, recorder, events } = this.options;
    const unknown = changes.filter((change) => change.accounts === null).map((change) => change.mc);
    const watchers = unknown.length > 0 ? await watch.watchersOf(unknown) : new Map<string, string[]>();
    const batch: Array<{ account: string; event: MonitoringEvent }> = [];
    const records: Promise<boolean>[] = [];
    recorder?.noteSnapshot(context.snapshot);
    for (const change of changes) {
      for (const account of change.accounts ?? watchers.get(change.mc) ?? []) {
        // A real decision record per account: GET /v1/decisions/{id} answers only the account that owns it.
        const reference = `monitoring:${change.trigger}`;
        const verdict = change.verdict ?? context.view.apply(
          toVerdict(forAsker(change.decision, { mc: change.mc, nowMs: context.nowMs }, { account, reference }), change.mc, context.nowMs, false), account);
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
          overrides: verdict.overrides,
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
