// What a replica knows about the shared state in Redis: the snapshot being served, the rule set in force,
// the API key epoch and whether Redis answers at all. One poll every STATE_POLL_MS (a single pipelined round
// trip) keeps it current, so snapshot switches and key changes reach every replica within a second.
import type { Redis } from 'ioredis';
import type { SnapshotMeta } from '../core/carrier.js';
import { doNotUseIndex, type DoNotUseIndex } from './do-not-use.js';
import { ruleSetSchema, type PublishedRuleSet } from '../core/ruleset.js';
import type { RedisKeys } from '../store/keys.js';
import type { Logger } from '../log.js';

export interface LiveStateListener {
  onKeyEpochChange(): void;
}

export class LiveState {
  snapshot: SnapshotMeta | null = null;
  ruleset: PublishedRuleSet | null = null;
  /** The live do-not-use list (MC → expiry), reloaded whenever dnu:epoch moves. */
  doNotUse: DoNotUseIndex = doNotUseIndex({});
  private doNotUseEpoch: string | null | undefined;
  /** False from the first failed Redis call until the next successful poll. */
  redisUp = false;
  private keyEpoch: string | null = null;
  private timer: NodeJS.Timeout | undefined;
  private polling = false;
  private readonly listeners: LiveStateListener[] = [];

  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly pollMs: number,
    private readonly log: Logger,
  ) {
    // A dropped connection is known at once; no need to wait for the next poll to fail closed.
    redis.on('close', () => this.markDown('connection closed'));
  }

  addListener(listener: LiveStateListener): void {
    this.listeners.push(listener);
  }

  /** First poll (awaited, so a replica starts with whatever state Redis has), then the periodic loop. */
  async start(): Promise<void> {
    await this.poll();
    this.timer = setInterval(() => void this.poll(), this.pollMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  markDown(why: unknown): void {
    if (this.redisUp) this.log.warn({ err: why }, 'redis unavailable; verdicts are degraded until it answers');
    this.redisUp = false;
  }

  async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      const [snapshotVersion, rulesetVersion, keyEpoch, doNotUseEpoch] = await this.redis.mget(
        this.keys.snapshotCurrent, this.keys.rulesetCurrent, this.keys.apiKeyEpoch, this.keys.doNotUseEpoch,
      );
      await this.refreshSnapshot(snapshotVersion ?? null);
      await this.refreshRuleset(rulesetVersion ?? null);
      if (doNotUseEpoch !== this.doNotUseEpoch) {
        this.doNotUse = doNotUseIndex(await this.redis.hgetall(this.keys.doNotUse));
        this.doNotUseEpoch = doNotUseEpoch;
      }
      if (keyEpoch !== this.keyEpoch) {
        this.keyEpoch = keyEpoch ?? null;
        for (const listener of this.listeners) listener.onKeyEpochChange();
      }
      if (!this.redisUp) this.log.info('redis available');
      this.redisUp = true;
    } catch (error) {
      this.markDown(error);
    } finally {
      this.polling = false;
    }
  }

  private async refreshSnapshot(version: string | null): Promise<void> {
    if (version === (this.snapshot?.version ?? null)) return;
    if (version === null) {
      this.snapshot = null;
      return;
    }
    const raw = await this.redis.get(this.keys.snapshotMeta(version));
    this.snapshot = raw ? JSON.parse(raw) as SnapshotMeta : null;
    this.log.info({ snapshot_version: version, data_as_of: this.snapshot?.data_as_of }, 'serving snapshot');
  }

  private async refreshRuleset(version: string | null): Promise<void> {
    const wanted = version === null ? null : Number(version);
    if (wanted === (this.ruleset?.version ?? null)) return;
    if (wanted === null) {
      this.ruleset = null;
      return;
    }
    const raw = await this.redis.get(this.keys.ruleset(wanted));
    const parsed = raw ? parsePublishedRuleSet(raw) : null;
    if (!parsed) this.log.error({ ruleset_version: wanted }, 'current rule set is missing or invalid; verdicts degraded');
    this.ruleset = parsed;
  }
}

export function parsePublishedRuleSet(raw: string): PublishedRuleSet | null {
  try {
    const value = JSON.parse(raw) as { version?: unknown; published_at?: unknown; rules?: unknown };
    const rules = ruleSetSchema.safeParse(value.rules);
    if (!rules.success || typeof value.version !== 'number') return null;
    return { version: value.version, published_at: String(value.published_at ?? ''), rules: rules.data };
  } catch {
    return null;
  }
}
