// What the service itself records about overrides: an expiry once its time has passed (verdicts stop counting
// it at that millisecond whether or not this has run: src/overrides/coverage.ts), and an invalidation once a
// verdict saw its bound facts change. Any replica may do either; the compare-and-set state change logs it once.
import type { Verdict } from '../core/verdict.js';
import type { Logger } from '../log.js';
import type { Invalidations } from './effect.js';
import { namesFingerprint } from './fingerprint.js';
import type { ActiveOverride } from './model.js';
import type { OverrideRegistry } from './registry.js';
import type { OverrideService } from './service.js';

/** What changed, in words, for the history entry and the event. */
export function invalidationNote(override: ActiveOverride, verdict: Pick<Verdict, 'carrier' | 'evidence'>): string {
  if (override.kind === 'clearance' && override.names_fingerprint !== namesFingerprint(verdict.carrier)) {
    return `The carrier's name changed (now ${JSON.stringify(verdict.carrier?.legal_name ?? null)}${verdict.carrier?.dba_name ? ` / DBA ${JSON.stringify(verdict.carrier.dba_name)}` : ''}).`;
  }
  if (override.kind === 'clearance') {
    const entries = override.bindings.map((binding) => `${binding.source} ${binding.record_id ?? '?'}`).join(', ');
    return `A list entry the clearance was bound to changed (${entries}).`;
  }
  return `The facts behind ${override.reasons.join(', ')} changed.`;
}

export class OverrideUpkeep implements Invalidations {
  private readonly busy = new Set<string>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly service: OverrideService,
    private readonly registry: OverrideRegistry,
    private readonly log: Logger,
    private readonly now: () => number,
  ) {}

  start(intervalMs: number): void {
    this.timer = setInterval(() => void this.sweep(), intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  report(override: ActiveOverride, verdict: Verdict): void {
    this.once(override, () => this.service.invalidate(override.account, override.id, invalidationNote(override, verdict)));
  }

  /** Records the expiry of every active override past its time. */
  async sweep(): Promise<void> {
    const due = this.registry.due(this.now());
    await Promise.all(due.map((override) => this.once(override, () => this.service.expire(override.account, override.id))));
  }

  private once(override: ActiveOverride, act: () => Promise<unknown>): Promise<void> {
    if (this.busy.has(override.id)) return Promise.resolve();
    this.busy.add(override.id);
    return act().then(() => undefined, (error: unknown) => {
      this.log.warn({ err: error, override_id: override.id }, 'override state change not recorded; retried');
    }).finally(() => this.busy.delete(override.id));
  }
}
