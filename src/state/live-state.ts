// What a replica knows about the shared state in Redis: the snapshot being served, the rule set in force,
// the API key epoch, the do-not-use list, and whether the backend is usable at all. One poll every
// STATE_POLL_MS (one MGET of five {ctl} keys: one slot, one round trip) keeps it current, so snapshot switches,
// key changes and DNU changes reach every replica within a second.
//
// This class is the ONE owner of "is the backend up?": `redisUp` is true only while Redis answers AND still
// holds the deployment mark (src/store/deployment-mark.ts). A Redis that answers without the mark has lost its
// data (a primary restarted empty, a FLUSHALL); verdicts are then degraded (backend_unavailable) and key lookups
// that miss are backend failures, not 401s (src/auth/key-store.ts). Every change of the replica's condition is
// logged once, as one structured line (src/state/condition.ts).
import type { SnapshotMeta } from '../core/carrier.js';
import type { PublishedRuleSet } from '../core/ruleset.js';
import type { Logger } from '../log.js';
import type { RedisClient } from '../redis/connection.js';
import { readDoNotUseEpoch, readDoNotUseLog, scanDoNotUse } from '../store/do-not-use.js';
import type { RedisKeys } from '../store/keys.js';
import { replicaProblems, type BackendStatus } from './condition.js';
import { DoNotUseList, type DoNotUseIndex } from './do-not-use.js';
import { decodePublishedRuleSet, decodeSnapshotMeta } from '../store/stored-json.js';

export interface LiveStateListener {
  onKeyEpochChange(): void;
}

/**
 * A feature's own {ctl} epoch key, read with the poll's MGET (no extra round trip); `changed` runs when its value
 * moves and is asked again on the next poll if it rejects (src/overrides/registry-sync.ts is one).
 */
export interface EpochWatcher {
  key: string;
  changed(value: string | null): Promise<void>;
}

/**
 * Asked before the replica starts serving a new snapshot (the one awaited step of a switch); what it resolves with
 * runs in the same synchronous step that makes `next` the snapshot served. The carrier cache's carry-over is one
 * (src/eligibility/cache-carry-over.ts). A preparer that rejects is logged and the switch goes ahead without it.
 */
export interface SnapshotPreparer {
  prepareSnapshot(next: SnapshotMeta): Promise<PreparedSwitch | null>;
}

export interface PreparedSwitch {
  /** Runs at the moment of the switch; must not throw. */
  onSwitch(): void;
  /** Added to the replica's "serving snapshot" log line. */
  facts: Record<string, number | string | boolean>;
}

const DATA_MISSING_MESSAGE = 'Redis answers but holds no deployment mark: either Redis lost its data or this deployment was never set up (seed/ingest/keys create/rules publish); verdicts are degraded (backend_unavailable)';

/** Change-log entries / list entries read per command while catching up or reloading: short replies only. */
const DNU_LOG_PAGE = 1000;
const DNU_SCAN_PAGE = 1000;

export class LiveState {
  snapshot: SnapshotMeta | null = null;
  ruleset: PublishedRuleSet | null = null;
  /** The live do-not-use list (MC → expiry), kept current from the change log. */
  doNotUse: DoNotUseIndex = new DoNotUseList();
  private doNotUseList = new DoNotUseList();
  /** Epoch (change-log id) the local list corresponds to; undefined = never loaded. */
  private doNotUseEpoch: string | null | undefined;
  /** Why the backend is or is not usable; `redisUp` is derived from it. */
  backend: BackendStatus = 'unreachable';
  private keyEpoch: string | null = null;
  private timer: NodeJS.Timeout | undefined;
  /** The poll under way, if any. */
  private polling: Promise<void> | null = null;
  /** One more poll queued behind it, shared by every caller that asked meanwhile. */
  private pollAgain: Promise<void> | null = null;
  private readonly listeners: LiveStateListener[] = [];
  private readonly preparers: SnapshotPreparer[] = [];
  private readonly epochWatchers: Array<{ watcher: EpochWatcher; seen: string | null | undefined }> = [];
  /** The problems last logged (JSON), so each change is logged exactly once. */
  private lastCondition: string | null = null;
  private sawMark = false;
  /** Why the last poll failed (named by the start-up line when the first poll could not read Redis). */
  private lastPollError: unknown = null;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
    private readonly pollMs: number,
    private readonly log: Logger,
    private readonly maxDataAgeSeconds = 172_800,
    private readonly now: () => number = Date.now,
  ) {
    // A dropped connection is known at once; no need to wait for the next poll to fail closed.
    redis.on('close', () => this.markDown('connection closed'));
  }

  /** True only while Redis answers and holds this deployment's data: verdicts and key lookups may trust it. */
  get redisUp(): boolean {
    return this.backend === 'up';
  }

  addListener(listener: LiveStateListener): void {
    this.listeners.push(listener);
  }

  addEpochWatcher(watcher: EpochWatcher): void {
    this.epochWatchers.push({ watcher, seen: undefined });
  }

  addSnapshotPreparer(preparer: SnapshotPreparer): void {
    this.preparers.push(preparer);
  }

  /** First poll (awaited, so a replica starts with whatever state Redis has), then the periodic loop. */
  async start(): Promise<void> {
    await this.poll();
    // The start-up line is the first state; from here on every change of it is logged once.
    const summary = this.summary();
    this.lastCondition = JSON.stringify(summary.problems);
    const unreachable = this.backend === 'unreachable';
    const level = this.backend === 'data_missing' ? 'error' : unreachable ? 'warn' : 'info';
    this.log[level]({ event: 'replica_state', ...summary, ...(unreachable ? { err: this.lastPollError } : {}) }, this.backend === 'data_missing'
      ? `replica state at start-up: ${DATA_MISSING_MESSAGE}`
      : unreachable ? 'replica state at start-up: Redis could not be read; verdicts are degraded until a poll succeeds' : 'replica state at start-up');
    // The periodic poll skips a turn while one is still running (a slow Redis); it never queues.
    this.timer = setInterval(() => { if (!this.polling) void this.poll(); }, this.pollMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** Called by any request-path Redis failure: fail closed at once, until the next successful poll. */
  markDown(why: unknown): void {
    if (this.backend === 'unreachable') return;
    this.backend = 'unreachable';
    this.logCondition(why);
  }

  /**
   * Reads the shared state once. Resolves only after a poll that began after this call: a poll already under way
   * may have read Redis before the caller's write (a rule set just published), so the caller waits for it and
   * for one more, which every caller arriving meanwhile shares.
   */
  poll(): Promise<void> {
    if (!this.polling) {
      this.polling = this.readState().finally(() => { this.polling = null; });
      return this.polling;
    }
    this.pollAgain ??= this.polling.then(() => {
      this.pollAgain = null;
      return this.poll();
    });
    return this.pollAgain;
  }

  private async readState(): Promise<void> {
    try {
      const [snapshotVersion, rulesetVersion, keyEpoch, doNotUseEpoch, mark, ...epochs] = await this.redis.mget(
        this.keys.snapshotCurrent, this.keys.rulesetCurrent, this.keys.apiKeyEpoch, this.keys.doNotUseEpoch, this.keys.deploymentMark,
        ...this.epochWatchers.map((entry) => entry.watcher.key),
      );
      await this.refreshSnapshot(snapshotVersion ?? null);
      await this.refreshRuleset(rulesetVersion ?? null);
      await this.refreshDoNotUse(doNotUseEpoch ?? null);
      if (keyEpoch !== this.keyEpoch) {
        this.keyEpoch = keyEpoch ?? null;
        for (const listener of this.listeners) listener.onKeyEpochChange();
      }
      for (const [index, entry] of this.epochWatchers.entries()) {
        const value = epochs[index] ?? null;
        if (value === entry.seen) continue;
        await entry.watcher.changed(value);
        entry.seen = value;
      }
      this.backend = await this.markStatus(mark ?? null, snapshotVersion ?? null, rulesetVersion ?? null);
      this.logCondition(null);
    } catch (error) {
      this.lastPollError = error;
      this.markDown(error);
    }
  }

  /** A one-line summary of what this replica serves (start-up log, and the state-change lines). */
  summary(): { problems: string[] } & Record<string, unknown> {
    return {
      backend: this.backend,
      problems: this.problems(),
      snapshot_version: this.snapshot?.version ?? null,
      data_as_of: this.snapshot?.data_as_of ?? null,
      carrier_count: this.snapshot?.carrier_count ?? null,
      sources_present: this.snapshot
        ? Object.entries(this.snapshot.sources).filter(([, source]) => source?.present).map(([name]) => name)
        : [],
      ruleset_version: this.ruleset?.version ?? null,
      do_not_use_entries: this.doNotUse.size,
    };
  }

  private problems(): string[] {
    return replicaProblems({
      backend: this.backend, snapshot: this.snapshot, ruleset: this.ruleset, maxDataAgeSeconds: this.maxDataAgeSeconds, nowMs: this.now(),
    });
  }

  private logCondition(cause: unknown): void {
    if (this.lastCondition === null) return; // not started: the start-up line reports the first state
    const problems = this.problems();
    const key = JSON.stringify(problems);
    if (key === this.lastCondition) return;
    this.lastCondition = key;
    const line = { event: 'replica_state', ...this.summary(), ...(cause ? { err: cause } : {}) };
    if (problems.includes('redis_data_missing')) {
      this.log.error(line, this.sawMark
        ? 'REDIS APPEARS TO HAVE LOST ITS DATA: the deployment mark is gone; every verdict is degraded (backend_unavailable) until the data is restored or re-created'
        : DATA_MISSING_MESSAGE);
    } else if (problems.length > 0) {
      this.log.warn(line, `replica degraded: ${problems.join(', ')}`);
    } else {
      this.log.info(line, 'replica recovered: verdicts are being given');
    }
  }

  /**
   * 'up' when the mark is there. Without it, a deployment from before the mark existed (rule set and snapshot
   * both present) is adopted by writing the mark; anything else is a Redis that lost its data.
   */
  private async markStatus(mark: string | null, snapshotVersion: string | null, rulesetVersion: string | null): Promise<BackendStatus> {
    if (mark !== null) {
      this.sawMark = true;
      return 'up';
    }
    if (snapshotVersion !== null && rulesetVersion !== null && !this.sawMark) {
      const adopted = await this.redis.set(this.keys.deploymentMark, JSON.stringify({ initialised_at: new Date(this.now()).toISOString(), by: 'adopted' }), 'NX');
      if (adopted === 'OK') this.log.info('deployment mark written for data that predates it');
      return 'up';
    }
    return 'data_missing';
  }

  private async refreshDoNotUse(epoch: string | null): Promise<void> {
    if (epoch === this.doNotUseEpoch) return;
    if (typeof this.doNotUseEpoch === 'string' && epoch !== null && await this.applyDoNotUseLog(this.doNotUseEpoch, epoch)) return;
    // First load, a list that vanished, or a replica too far behind the (trimmed) log: read it whole, in pages,
    // then replay the log after the epoch read first (changes made during the scan end up exactly applied).
    const loadedEpoch = await readDoNotUseEpoch(this.redis, this.keys);
    const list = new DoNotUseList();
    let cursor = '0';
    do {
      const page = await scanDoNotUse(this.redis, this.keys, cursor, DNU_SCAN_PAGE);
      for (const [mc, raw] of page.entries) list.set(mc, raw);
      cursor = page.cursor;
    } while (cursor !== '0');
    this.doNotUseList = list;
    if (loadedEpoch !== null) {
      // Throws or returns false only if the log moved past loadedEpoch meanwhile: the next poll reloads.
      this.doNotUseEpoch = loadedEpoch;
      if (!(await this.applyDoNotUseLog(loadedEpoch, loadedEpoch))) this.doNotUseEpoch = undefined;
    } else {
      this.doNotUseEpoch = null;
    }
    this.doNotUse = list;
  }

  /**
   * Applies the log entries after `from`, through `to` and whatever was appended since (an import may still be
   * running); false when the log no longer links up to `from` (trimmed, or the list was recreated): reload.
   */
  private async applyDoNotUseLog(from: string, to: string): Promise<boolean> {
    let at = from;
    let reached = from === to;
    for (;;) {
      const entries = await readDoNotUseLog(this.redis, this.keys, at, DNU_LOG_PAGE);
      if (entries.length === 0) return reached;
      for (const entry of entries) {
        if (entry.prev !== at) return false;
        if (entry.op === 'set') this.doNotUseList.set(entry.mc, entry.entry);
        else this.doNotUseList.delete(entry.mc);
        at = entry.id;
        // Applied up to here: a failure on the next page resumes from this entry, never re-applies.
        this.doNotUseEpoch = at;
        if (at === to) reached = true;
      }
      if (reached && entries.length < DNU_LOG_PAGE) return true;
    }
  }

  private async refreshSnapshot(version: string | null): Promise<void> {
    if (version === (this.snapshot?.version ?? null)) return;
    if (version === null) {
      this.snapshot = null;
      return;
    }
    const raw = await this.redis.get(this.keys.snapshotMeta(version));
    const next = raw ? decodeSnapshotMeta(raw, this.keys.snapshotMeta(version)) : null;
    const prepared = next === null ? [] : await this.prepareSwitch(next);
    // One synchronous step: no check sees the new snapshot without what its preparers made ready, or the reverse.
    this.snapshot = next;
    for (const { onSwitch } of prepared) onSwitch();
    const facts = Object.assign({}, ...prepared.map((switched) => switched.facts)) as PreparedSwitch['facts'];
    this.log.info({ snapshot_version: version, data_as_of: next?.data_as_of, ...facts }, 'serving snapshot');
  }

  private async prepareSwitch(next: SnapshotMeta): Promise<PreparedSwitch[]> {
    const prepared: PreparedSwitch[] = [];
    for (const preparer of this.preparers) {
      try {
        const switched = await preparer.prepareSnapshot(next);
        if (switched !== null) prepared.push(switched);
      } catch (error) {
        this.log.warn({ err: error, snapshot_version: next.version }, 'snapshot switch: a preparation failed; switching without it');
      }
    }
    return prepared;
  }

  private async refreshRuleset(version: string | null): Promise<void> {
    const wanted = version === null ? null : Number(version);
    if (wanted === (this.ruleset?.version ?? null)) return;
    if (wanted === null) {
      this.ruleset = null;
      return;
    }
    const raw = await this.redis.get(this.keys.ruleset(wanted));
    const parsed = raw ? decodePublishedRuleSet(raw) : null;
    if (!parsed) this.log.error({ ruleset_version: wanted }, 'current rule set is missing or invalid; verdicts degraded');
    this.ruleset = parsed;
  }
}
