// Prometheus metrics (prom-client). State gauges are computed at scrape time from what the replica already
// knows, so they cost nothing on the request path; counters are incremented where the event happens.
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import { toEpochMs } from './core/dates.js';
import type { LiveState } from './state/live-state.js';

export class Metrics {
  readonly registry = new Registry();

  readonly verdicts = new Counter({
    name: 'ce_verdicts_total',
    help: 'Eligibility verdicts by tier ("none" when not found or degraded) and degradation',
    labelNames: ['tier', 'degraded', 'cache_hit'] as const,
    registers: [this.registry],
  });

  /** Children resolved once per label combination: label lookup on every verdict would cost more. */
  private readonly verdictChildren = new Map<string, Counter.Internal>();

  countVerdict(verdict: { tier: string | null; degraded: boolean; cache_hit: boolean }): void {
    const id = `${verdict.tier}|${verdict.degraded}|${verdict.cache_hit}`;
    let child = this.verdictChildren.get(id);
    if (!child) {
      child = this.verdicts.labels(verdict.tier ?? 'none', String(verdict.degraded), String(verdict.cache_hit));
      this.verdictChildren.set(id, child);
    }
    child.inc();
  }

  constructor(state: LiveState, now: () => number = Date.now) {
    collectDefaultMetrics({ register: this.registry, prefix: 'ce_' });
    new Gauge({
      name: 'ce_redis_up', help: '1 while this replica can reach Redis', registers: [this.registry],
      collect() {
        this.set(state.redisUp ? 1 : 0);
      },
    });
    new Gauge({
      name: 'ce_data_age_seconds', help: 'Age of the carrier snapshot being served (absent: none)', registers: [this.registry],
      collect() {
        this.reset();
        const asOf = state.snapshot ? toEpochMs(state.snapshot.data_as_of) : NaN;
        if (Number.isFinite(asOf)) this.set(Math.max(0, (now() - asOf) / 1000));
      },
    });
    new Gauge({
      name: 'ce_ruleset_version', help: 'Version of the rule set in force (absent: none)', registers: [this.registry],
      collect() {
        this.reset();
        if (state.ruleset) this.set(state.ruleset.version);
      },
    });
    new Gauge({
      name: 'ce_snapshot_carriers', help: 'Carriers in the snapshot being served', registers: [this.registry],
      collect() {
        this.set(state.snapshot?.carrier_count ?? 0);
      },
    });
  }
}
