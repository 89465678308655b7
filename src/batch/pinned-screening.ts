// Decisions against a job's pinned snapshot version and rule set (not whatever is current), so every row of a
// job is judged on the same data and rules. Reads the carrier hashes through the codec and bucket function
// the single check uses, and decides through the same assess().
//
// A retired snapshot version is removed by ingest after its grace period, buckets first, meta last. A version
// that is gone, or retired and due for removal within SNAPSHOT_SAFETY_MS, is treated as missing: the decision
// is degraded (data_stale) instead of risking a false "not found" from a half-removed version.
import type { RedisClient } from '../redis/connection.js';
import { z } from 'zod';
import { execValues } from '../redis/exec-values.js';
import { sendKeyed } from '../redis/keyed-batch.js';
import type { CarrierLookup, SnapshotMeta } from '../core/carrier.js';
import { assess, type Asker } from '../core/assess.js';
import type { Decision } from '../core/decide.js';
import type { PublishedRuleSet } from '../core/ruleset.js';
import { doNotUseIndex } from '../state/do-not-use.js';
import { decodeCarrier } from '../store/carrier-codec.js';
import { carrierBucket, type RedisKeys } from '../store/keys.js';
import type { JobPins } from './jobs.js';
import { decodePublishedRuleSet, decodeSnapshotMeta } from '../store/stored-json.js';

const SNAPSHOT_SAFETY_MS = 5000;
/** GET, ZSCORE and HMGET replies: a string or nil each. */
const nullableStrings = z.array(z.string().nullable());

/** One row to decide: its normalised MC number, and the job's account with the row's reference. */
export interface PinnedCheck {
  mc: string;
  asker: Asker;
}

/** Account policies as batch screening needs them, supplied by the composition root (src/policy). */
export interface PolicyPins {
  /** The account's current policy version, pinned at submit like the rule set; null without a policy. */
  currentVersion(account: string): number | null;
  /** The rule set a pinned (account, policy version) decides with over a pinned rule set; null when unreadable. */
  rulesetFor(account: string, version: number, ruleset: PublishedRuleSet): Promise<PublishedRuleSet | null>;
}

/** A job's pinned policy: the submitting key's account and its policy version then. */
export interface PolicyPin { account: string; version: number }

export class PinnedScreening {
  /** Published rule sets never change, so a version read once is kept. */
  private readonly rulesets = new Map<number, PublishedRuleSet>();

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
    private readonly maxDataAgeSeconds: number,
    private readonly now: () => number = Date.now,
    private readonly policies: PolicyPins | null = null,
  ) {}

  /** One decision per check (a normalised MC number and who asks), in order. Throws when Redis fails (the caller retries). */
  async decideAll(pins: Pick<JobPins, 'snapshot_version' | 'ruleset_version'>, checks: readonly PinnedCheck[], policy: PolicyPin | null = null): Promise<{ decisions: Decision[]; nowMs: number; snapshot: SnapshotMeta | null }> {
    const version = pins.snapshot_version;
    const mcs = checks.map((check) => check.mc);
    // Carriers first: their buckets spread over cluster slots, so they go one key per command (sendKeyed).
    const encoded = version
      ? (await sendKeyed(this.redis, mcs.map((mc) => ['hget', this.keys.carrierBucket(version, carrierBucket(mc)), mc] as const)))
        .map((value) => (typeof value === 'string' ? value : null))
      : [];
    // Then everything else, all in the {ctl} slot, so one pipeline. Read after the carriers: a meta still
    // present and not due for removal vouches for what was read.
    const pipeline = this.redis.pipeline();
    if (version) {
      pipeline.get(this.keys.snapshotMeta(version));
      pipeline.zscore(this.keys.snapshotRetired, version);
    }
    const rulesetVersion = pins.ruleset_version;
    const cachedRuleset = rulesetVersion === null ? null : this.rulesets.get(rulesetVersion);
    if (rulesetVersion !== null && !cachedRuleset) pipeline.get(this.keys.ruleset(rulesetVersion));
    // The live do-not-use list applies to batch rows exactly as to single checks: listed means blocked now.
    if (mcs.length > 0) pipeline.hmget(this.keys.doNotUse, ...mcs);
    const replies = execValues(await pipeline.exec(), 'batch pins read');
    const listed = mcs.length > 0 ? nullableStrings.parse(replies.pop()) : [];
    const values = nullableStrings.parse(replies);
    const doNotUse = doNotUseIndex(Object.fromEntries(mcs.flatMap((mc, index) => {
      const entry = listed[index];
      return entry === null || entry === undefined ? [] : [[mc, entry]];
    })));

    const nowMs = this.now();
    let snapshot: SnapshotMeta | null = null;
    if (version) {
      const meta = values[0] ?? null;
      const retiredDue = values[1];
      const removable = retiredDue !== null && retiredDue !== undefined && Number(retiredDue) <= nowMs + SNAPSHOT_SAFETY_MS;
      snapshot = meta && !removable ? decodeSnapshotMeta(meta, this.keys.snapshotMeta(version)) : null;
    }
    let ruleset = cachedRuleset ?? null;
    if (rulesetVersion !== null && !cachedRuleset) {
      const raw = values[values.length - 1];
      ruleset = raw ? decodePublishedRuleSet(raw) : null;
      if (ruleset) this.rulesets.set(rulesetVersion, ruleset);
    }
    // A pinned policy whose rule set cannot be made leaves no rule set: degraded (ruleset_unavailable), never looser.
    if (policy !== null && ruleset !== null) ruleset = this.policies ? await this.policies.rulesetFor(policy.account, policy.version, ruleset) : null;
    const decisions = checks.map(({ mc, asker }, index) => assess({
      mc, lookup: snapshot ? safeDecode(mc, encoded[index] ?? null) : null,
      snapshot, ruleset, doNotUse, backendAvailable: true, maxDataAgeSeconds: this.maxDataAgeSeconds, nowMs,
    }, asker));
    return { decisions, nowMs, snapshot };
  }
}

/** An undecodable record is not a verdict: null makes decide() answer degraded, never "eligible". */
function safeDecode(mc: string, encoded: string | null): CarrierLookup | null {
  try {
    return decodeCarrier(mc, encoded);
  } catch {
    return null;
  }
}
