// Review sightings from the verdict paths, written in the background and coalesced per replica: the first
// conditional verdict for an account and carrier is written at once, later ones at most once per interval (their
// count added up), so a carrier checked thousands of times an hour costs a few writes, not thousands. A status
// change (open <-> covered) is written at once.
import type { Verdict } from '../core/verdict.js';
import type { Logger } from '../log.js';
import type { ReviewSightings } from './effect.js';
import type { ReviewSource, ReviewStatus, ReviewStore } from './review-store.js';

export const SIGHTING_INTERVAL_MS = 10_000;
const MAX_TRACKED = 100_000;

interface Pending {
  writtenAt: number;
  status: ReviewStatus;
  count: number;
  verdict: Verdict | null;
  source: ReviewSource;
  writing: boolean;
}

export class CoalescedSightings implements ReviewSightings {
  private readonly tracked = new Map<string, Map<string, Pending>>();
  private size = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: ReviewStore,
    private readonly log: Logger,
    private readonly now: () => number,
    /** Told when an item becomes open (the review.opened event). */
    private readonly opened: (account: string, verdict: Verdict) => void,
  ) {}

  start(): void {
    this.timer = setInterval(() => this.flushDue(), SIGHTING_INTERVAL_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  note(account: string, verdict: Verdict, covered: boolean, source: ReviewSource): void {
    const status: ReviewStatus = covered ? 'covered' : 'open';
    let carriers = this.tracked.get(account);
    if (carriers === undefined) {
      if (this.size >= MAX_TRACKED) this.flushAll();
      this.tracked.set(account, carriers = new Map());
    }
    const pending = carriers.get(verdict.mc_number);
    if (pending !== undefined && pending.status === status && this.now() - pending.writtenAt < SIGHTING_INTERVAL_MS) {
      pending.count += 1;
      pending.verdict = verdict;
      pending.source = source;
      return;
    }
    const next: Pending = pending ?? { writtenAt: 0, status, count: 0, verdict: null, source, writing: false };
    if (pending === undefined) {
      carriers.set(verdict.mc_number, next);
      this.size += 1;
    }
    next.status = status;
    next.count += 1;
    next.verdict = verdict;
    next.source = source;
    this.write(account, next);
  }

  /** Writes every sighting not yet written (tests, shutdown). */
  async flush(): Promise<void> {
    const writes: Array<Promise<void>> = [];
    for (const [account, carriers] of this.tracked) for (const pending of carriers.values()) if (pending.count > 0) writes.push(this.write(account, pending));
    await Promise.all(writes);
  }

  private flushDue(): void {
    const nowMs = this.now();
    for (const [account, carriers] of this.tracked) {
      for (const [mc, pending] of carriers) {
        if (pending.count > 0) void this.write(account, pending);
        else if (nowMs - pending.writtenAt >= SIGHTING_INTERVAL_MS) {
          carriers.delete(mc);
          this.size -= 1;
        }
      }
      if (carriers.size === 0) this.tracked.delete(account);
    }
  }

  private flushAll(): void {
    void this.flush();
    this.tracked.clear();
    this.size = 0;
  }

  private async write(account: string, pending: Pending): Promise<void> {
    const { verdict } = pending;
    if (verdict === null || pending.writing) return;
    const count = pending.count;
    pending.count = 0;
    pending.writing = true;
    pending.writtenAt = this.now();
    try {
      const result = await this.store.sight(account, {
        mc: verdict.mc_number, dot: verdict.carrier?.dot_number ?? null, legalName: verdict.carrier?.legal_name ?? null,
        reasons: verdict.reasons, evidence: verdict.evidence.reasons, decisionId: verdict.decision_id, source: pending.source,
        status: pending.status, atMs: pending.writtenAt, count,
      });
      if (result !== null && result.after === 'open' && result.before !== 'open') this.opened(account, verdict);
    } catch (error) {
      pending.count += count;
      this.log.warn({ err: error, mc: verdict.mc_number }, 'review sighting not recorded; retried with the next one');
    } finally {
      pending.writing = false;
    }
  }
}
