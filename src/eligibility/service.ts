// The single-check use case: the carrier through the in-process LRU (or one Redis read, batched with the turn's
// others), then assess() (src/core/assess.ts), then the decision record. Any Redis failure marks the replica's
// backend down and yields a degraded verdict, never an exception.
import { assess, NO_ASKER, type Asker, type Decider } from '../core/assess.js';
import type { CarrierLookup, SnapshotMeta } from '../core/carrier.js';
import type { PublishedRuleSet } from '../core/ruleset.js';
import type { Verdict } from '../core/verdict.js';
import { toVerdict, type RecordContext, type DecisionRecorder, type RecordWaiter } from '../decisions/index.js';
import type { RedisClient } from '../redis/connection.js';
import { EndOfTurn } from '../redis/end-of-turn.js';
import type { LiveState, PreparedSwitch, SnapshotPreparer } from '../state/live-state.js';
import { decodeCarrier } from '../store/carrier-codec.js';
import { CARRIER_BUCKETS, carrierBucket, type RedisKeys } from '../store/keys.js';
import { carryOver, type CarryOverOptions } from './cache-carry-over.js';
import { CarrierCache } from './carrier-cache.js';
import { CarrierReads, type CarrierReadWaiter } from './carrier-reads.js';
import { VerdictTemplates } from './verdict-bytes.js';

export interface EligibilityOptions {
  cacheMax: number;
  /** What a snapshot switch reads again from the new snapshot (src/eligibility/cache-carry-over.ts); none when absent. */
  carryOver?: CarryOverOptions;
  maxDataAgeSeconds: number;
  now?: () => number;
  /** Decision records (mandatory in production; null only for the records-off benchmark). */
  recorder?: DecisionRecorder | null;
  /** Where carrier lookups are sent, with the turn's other request-path commands (one socket write per turn). */
  endOfTurn?: EndOfTurn;
  /**
   * The rule set an account decides with when it has a policy (src/policy): the floor with the policy's stricter
   * knobs and outcome map. Absent, or null for an account: the global rule set.
   */
  policies?: { forAccount(account: string, ruleset: PublishedRuleSet | null): { ruleset: PublishedRuleSet } | null; loaded(): boolean };
  /**
   * The step after deciding a recorded check's `conditional` verdict (the account's overrides and review queue,
   * src/overrides/effect.ts): the verdict to answer and record. Synchronous; never asked about other tiers.
   */
  postDecision?: (verdict: Verdict, context: RecordContext) => Verdict;
}

// Degraded verdicts answered because their real verdict's record could not be stored; their own record could
// not be stored either, so they exist only in the access log (which marks them `recorded: false`).
const unrecorded = new WeakSet<Verdict>();

export function isUnrecorded(verdict: Verdict): boolean {
  return unrecorded.has(verdict);
}

/** Who started a check (checkInto), told its outcome exactly once; must not throw (it answers its own failures). */
export interface VerdictWaiter {
  /** The verdict to answer with: recorded, or degraded and unrecorded when its record could not be written. */
  checked(verdict: Verdict): void;
  /** A bug in deciding (never a Redis failure, which gives a degraded verdict instead). */
  checkFailed(error: unknown): void;
}

/** The service's steps a waiting check resumes with (bound once per service, not per check). */
interface CheckSteps {
  read(check: PendingCheck, encoded: string | null, failure: { error: unknown } | null): void;
  recorded(check: PendingCheck, ok: boolean): void;
}

/**
 * One check waiting for Redis: for its carrier read (a cache miss), then for its decision record's
 * acknowledgement. It waits as an entry of the read's and the record write's turn lists, called back in a loop
 * when the turn's reply arrives, instead of as async functions (a promise, a suspended frame and a reaction per
 * wait, and the caller's own promise around them): about 2 % less CPU per check (median of 23 interleaved rounds)
 * and a fifth fewer scavenges.
 */
class PendingCheck implements CarrierReadWaiter, RecordWaiter {
  /** The verdict whose record is being written. */
  verdict: Verdict | null = null;

  constructor(
    private readonly steps: CheckSteps,
    readonly mc: string,
    /** Null for evaluate(): a verdict that is not recorded. */
    readonly context: RecordContext | null,
    readonly waiter: VerdictWaiter,
    /** The snapshot and rule set of the moment the check began, which a read's verdict is decided against. */
    readonly snapshot: SnapshotMeta | null,
    readonly ruleset: PublishedRuleSet | null,
  ) {}

  carrierRead(encoded: string | null): void {
    this.steps.read(this, encoded, null);
  }

  carrierReadFailed(error: unknown): void {
    this.steps.read(this, null, { error });
  }

  recorded(ok: boolean): void {
    this.steps.recorded(this, ok);
  }
}

export class EligibilityService implements SnapshotPreparer {
  private readonly cache: CarrierCache;
  private readonly templates = new VerdictTemplates();
  /** assess()'s decider for a cache hit or an unknown carrier: the verdict templates' memo of decide(). */
  private readonly settle: Decider = (input, mc) => this.templates.settleInput(input, mc);
  private readonly now: () => number;
  private readonly recorder: DecisionRecorder | null;
  private readonly reads: CarrierReads;
  /**
   * The carrier bucket keys of the snapshot being read, each built once: per cache-cold check, the bucket number's
   * string (16,384 numbers overflow V8's number-string cache) and the concatenation were 0.6 % in `perf`.
   */
  private bucketKeys: { version: string; keys: Array<string | undefined> } = { version: '', keys: [] };
  private readonly steps: CheckSteps = {
    read: (check, encoded, failure) => this.afterRead(check, encoded, failure),
    recorded: (check, ok) => this.afterRecord(check, ok),
  };

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
    private readonly state: LiveState,
    private readonly options: EligibilityOptions,
  ) {
    this.cache = new CarrierCache(options.cacheMax);
    this.now = options.now ?? Date.now;
    this.recorder = options.recorder ?? null;
    this.reads = new CarrierReads(redis, options.endOfTurn ?? new EndOfTurn(redis));
  }

  /**
   * Decides a request's verdict and tells `waiter` once its decision record is acknowledged. When the record
   * cannot be written (Redis failed or timed out), the answer is a degraded backend_unavailable verdict with a
   * new id: never an unrecorded real verdict. A cache hit is decided now and its record enqueued in this turn; a
   * miss first reads the carrier with the turn's other reads.
   */
  checkInto(mc: string, backendOk: boolean, context: RecordContext, waiter: VerdictWaiter): void {
    this.begin(mc, backendOk, context, waiter);
  }

  /**
   * Verdict for a normalised MC number, not recorded. `backendOk` lets the caller pass in what it already learned
   * on this request (the budget draw is a Redis call too), so a failure there degrades the verdict as well.
   */
  evaluate(mc: string, backendOk = true, account: string | null = null): Promise<Verdict> {
    return this.evaluateUnder(mc, this.rulesetFor(account), backendOk);
  }

  /** Verdict under a given rule set (a policy dry run compares two), not recorded. */
  evaluateUnder(mc: string, ruleset: PublishedRuleSet | null, backendOk = true): Promise<Verdict> {
    return new Promise((resolve, reject) => this.begin(mc, backendOk, null, { checked: resolve, checkFailed: reject }, ruleset));
  }

  /**
   * The rule set a check of `account` decides with: the global one, or its policy's compiled one. Until the
   * policies were read once, an account's policy cannot be known, so no rule set is given (ruleset_unavailable:
   * degraded, never a verdict looser than the account's policy).
   */
  rulesetFor(account: string | null, ruleset: PublishedRuleSet | null = this.state.ruleset): PublishedRuleSet | null {
    const { policies } = this.options;
    if (policies === undefined || account === null) return ruleset;
    if (!policies.loaded()) return null;
    return policies.forAccount(account, ruleset)?.ruleset ?? ruleset;
  }

  /** Before a snapshot switch: the cached carriers read again from `next`, adopted at the switch (LiveState). */
  async prepareSnapshot(next: SnapshotMeta): Promise<PreparedSwitch | null> {
    const { carryOver: options } = this.options;
    if (options === undefined) return null;
    const carried = await carryOver(this.redis, this.keys, this.cache, next, options, this.now);
    if (carried === null) return null;
    return {
      onSwitch: carried.adopt,
      facts: { cache_carried_over: carried.carried, cache_carry_over_wanted: carried.wanted, cache_carry_over_ms: carried.ms },
    };
  }

  /** Withdraws the record of a verdict checkInto() gave but the caller did not answer with (see DecisionRecorder.withdraw). */
  withdraw(verdict: Verdict): void {
    if (this.recorder !== null && !unrecorded.has(verdict)) this.recorder.withdraw(verdict);
  }

  /**
   * The verdict when it needs no Redis read (the carrier is in the LRU, or the backend cannot be asked
   * anyway); null when only a Redis read can tell.
   */
  evaluateNow(mc: string, backendOk = true, asker: Asker = NO_ASKER, ruleset: PublishedRuleSet | null = this.rulesetFor(asker.account)): Verdict | null {
    const { snapshot } = this.state;
    const backendAvailable = backendOk && this.state.redisUp;
    if (!backendAvailable || !snapshot) return this.verdictFor(mc, null, false, backendAvailable, snapshot, ruleset, asker);
    const cached = this.cache.get(snapshot.version, mc);
    return cached ? this.verdictFor(mc, cached, true, true, snapshot, ruleset, asker) : null;
  }

  private begin(mc: string, backendOk: boolean, context: RecordContext | null, waiter: VerdictWaiter,
    ruleset: PublishedRuleSet | null = this.rulesetFor(context?.account ?? null)): void {
    const { snapshot } = this.state;
    let verdict: Verdict | null;
    try {
      verdict = this.evaluateNow(mc, backendOk, context ?? NO_ASKER, ruleset);
    } catch (error) {
      waiter.checkFailed(error);
      return;
    }
    const check = new PendingCheck(this.steps, mc, context, waiter, snapshot, ruleset);
    if (verdict !== null) {
      this.recordThenAnswer(check, verdict);
      return;
    }
    // evaluateNow answers every check without a snapshot, so a miss has one. It does not ask the LRU again after
    // the read (a second LRU miss per cache-cold check).
    const version = (snapshot as SnapshotMeta).version;
    if (this.bucketKeys.version !== version) this.bucketKeys = { version, keys: new Array<string | undefined>(CARRIER_BUCKETS).fill(undefined) };
    const bucket = carrierBucket(mc);
    const key = this.bucketKeys.keys[bucket] ??= this.keys.carrierBucket(version, bucket);
    this.reads.readFor(key, mc, check);
  }

  /** A cache miss's verdict, from its carrier read (or its failure: degraded). */
  private afterRead(check: PendingCheck, encoded: string | null, failure: { error: unknown } | null): void {
    const { mc, snapshot, ruleset } = check;
    let verdict: Verdict;
    try {
      let lookup: CarrierLookup | null = null;
      let backendAvailable = true;
      try {
        if (failure !== null) throw failure.error;
        lookup = decodeCarrier(mc, encoded);
        // Negative results are cached too, so random MC numbers cannot hammer Redis. A read that a snapshot
        // switch overtook is not cached: it would empty the new version's entries.
        if (snapshot !== null && this.state.snapshot === snapshot) this.cache.set(snapshot.version, mc, lookup);
      } catch (error) {
        this.state.markDown(error);
        backendAvailable = false;
      }
      verdict = this.verdictFor(mc, lookup, false, backendAvailable, snapshot, ruleset, check.context ?? NO_ASKER);
    } catch (error) {
      check.waiter.checkFailed(error);
      return;
    }
    this.recordThenAnswer(check, verdict);
  }

  /** Answers at once a verdict that is not to be recorded; otherwise enqueues its record and waits for it. */
  private recordThenAnswer(check: PendingCheck, given: Verdict): void {
    let verdict = given;
    if (verdict.tier === 'conditional' && check.context !== null && this.options.postDecision !== undefined) {
      try {
        verdict = this.options.postDecision(verdict, check.context);
      } catch (error) {
        check.waiter.checkFailed(error);
        return;
      }
    }
    if (check.context === null || this.recorder === null) {
      check.waiter.checked(verdict);
      return;
    }
    // Redis is already known to be unreachable or too slow: a record write would only wait out the command
    // timeout (measured: median answer 111 ms instead of < 5 ms with Redis paused) to fail. The answer
    // dispatches nothing, so it goes out at once, logged only (`recorded: false`), like a failed write.
    if (verdict.degraded && verdict.reasons.includes('backend_unavailable')) {
      unrecorded.add(verdict);
      check.waiter.checked(verdict);
      return;
    }
    check.verdict = verdict;
    try {
      this.recorder.recordFor(verdict, check.context, check);
    } catch (error) {
      // Encoding the record failed (a bug): nothing was enqueued, so the waiter hears it here or never.
      check.waiter.checkFailed(error);
    }
  }

  private afterRecord(check: PendingCheck, ok: boolean): void {
    if (ok) {
      check.waiter.checked(check.verdict as Verdict);
      return;
    }
    let degraded: Verdict;
    try {
      this.state.markDown('decision record write failed');
      const nowMs = this.now();
      const { snapshot, ruleset, doNotUse } = this.state;
      degraded = toVerdict(assess({
        mc: check.mc, lookup: null, snapshot, ruleset, doNotUse, backendAvailable: false,
        maxDataAgeSeconds: this.options.maxDataAgeSeconds, nowMs,
      }, check.context ?? NO_ASKER), check.mc, nowMs, false);
      unrecorded.add(degraded);
    } catch (error) {
      check.waiter.checkFailed(error);
      return;
    }
    check.waiter.checked(degraded);
  }

  /** assess() of what the lookup found, at this instant, against the snapshot and rule set read before it. */
  private verdictFor(mc: string, lookup: CarrierLookup | null, cacheHit: boolean, backendAvailable: boolean,
    snapshot: SnapshotMeta | null, ruleset: PublishedRuleSet | null, asker: Asker): Verdict {
    this.recorder?.noteSnapshot(snapshot);
    const nowMs = this.now();
    // Templates only for carriers checked again (a cache hit): a first check pays JSON.stringify anyway, and
    // building a template for every cache miss made the cache-cold check ~20 % dearer in the bench. A not-found
    // lookup is the exception: its template is the snapshot's one for every unknown MC number (decodeCarrier
    // gives them one shared lookup object), built once.
    const decision = assess({
      mc, lookup, snapshot, ruleset, doNotUse: this.state.doNotUse, backendAvailable, maxDataAgeSeconds: this.options.maxDataAgeSeconds, nowMs,
    }, asker, cacheHit || lookup?.kind === 'not_found' ? this.settle : undefined);
    return toVerdict(decision, mc, nowMs, cacheHit && !decision.degraded);
  }

}
