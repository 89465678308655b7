// Prometheus metrics (prom-client). State gauges are computed at scrape time from what the replica already
// knows, so they cost nothing on the request path; counters are incremented where the event happens.
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import { toEpochMs } from './core/dates.js';
import type { LiveState } from './state/live-state.js';

/** Values of the tier label that have a pre-bound slot ("none": not found or degraded). */
const VERDICT_TIERS = ['none', 'preferred', 'standard', 'conditional', 'blocked'] as const;

/** Slot of a tier, or -1 for a tier without one (counted through labels(), as before). */
function tierIndex(tier: string | null): number {
  switch (tier) {
    case null: return 0;
    case 'preferred': return 1;
    case 'standard': return 2;
    case 'conditional': return 3;
    case 'blocked': return 4;
    default: return -1;
  }
}

/**
 * Upper bounds of the request-duration buckets, seconds: fine steps from 0.5 ms, where a check answers under load
 * (p50 ~1 ms, p99 ~3–6 ms at saturation in bench/README.md), to 5 s, past the Redis command timeouts a degraded
 * answer waits out.
 */
export const REQUEST_DURATION_BUCKETS = [0.0005, 0.001, 0.002, 0.003, 0.005, 0.0075, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5] as const;
const BOUNDS_MS = REQUEST_DURATION_BUCKETS.map((seconds) => seconds * 1000);
/** One count per bound and one for +Inf. */
const BUCKETS_PER_SERIES = BOUNDS_MS.length + 1;
const DURATION_NAME = 'ce_http_request_duration_seconds';

function labelValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

/**
 * Request durations by route, as a Prometheus histogram: the adapter (src/http/uws.ts) takes a slot per route when
 * it registers it and counts every answer into a flat array; the histogram's text is written at scrape time.
 * prom-client's Histogram.observe() costs ~100 ns per call (label hashing, a bucket object per series) against ~3 ns
 * for this array increment (measured in isolation), on a check of ~11 µs; it has no way to
 * add counts in bulk, so the exposition is written here (the text format's histogram: cumulative `le` buckets,
 * `_sum`, `_count`).
 */
export class RequestDurations {
  /** Per slot, its label pairs as exposition text (`method="POST",route="/v1/eligibility"`). */
  private readonly series: string[] = [];
  private counts = new Float64Array(0);
  /** Per slot, the sum of its durations in milliseconds. */
  private sums = new Float64Array(0);

  /** The slot of a route (method and pattern; the adapter's unmatched requests are one more). Call at start. */
  slotOf(method: string, route: string): number {
    const labels = `method="${labelValue(method)}",route="${labelValue(route)}"`;
    const known = this.series.indexOf(labels);
    if (known >= 0) return known;
    this.series.push(labels);
    const counts = new Float64Array(this.series.length * BUCKETS_PER_SERIES);
    counts.set(this.counts);
    this.counts = counts;
    const sums = new Float64Array(this.series.length);
    sums.set(this.sums);
    this.sums = sums;
    return this.series.length - 1;
  }

  /** Counts one answer of `slot` that took `durationMs`. */
  observe(slot: number, durationMs: number): void {
    let bucket = 0;
    while (bucket < BOUNDS_MS.length && durationMs > (BOUNDS_MS[bucket] as number)) bucket += 1;
    const index = slot * BUCKETS_PER_SERIES + bucket;
    this.counts[index] = (this.counts[index] as number) + 1;
    this.sums[slot] = (this.sums[slot] as number) + durationMs;
  }

  /** The histogram in Prometheus' text format, one series per slot that has answered. */
  exposition(): string {
    const lines = [`# HELP ${DURATION_NAME} Time from the adapter taking a request (headers parsed) to its answer written (a stream: its last chunk), by route`,
      `# TYPE ${DURATION_NAME} histogram`];
    this.series.forEach((labels, slot) => {
      let cumulative = 0;
      const buckets: string[] = [];
      for (let bucket = 0; bucket < BUCKETS_PER_SERIES; bucket += 1) {
        cumulative += this.counts[slot * BUCKETS_PER_SERIES + bucket] as number;
        const bound = bucket < REQUEST_DURATION_BUCKETS.length ? String(REQUEST_DURATION_BUCKETS[bucket]) : '+Inf';
        buckets.push(`${DURATION_NAME}_bucket{${labels},le="${bound}"} ${cumulative}`);
      }
      if (cumulative === 0) return;
      lines.push(...buckets, `${DURATION_NAME}_sum{${labels}} ${(this.sums[slot] as number) / 1000}`,
        `${DURATION_NAME}_count{${labels}} ${cumulative}`);
    });
    return `${lines.join('\n')}\n`;
  }
}

export class Metrics {
  readonly registry = new Registry();
  /** Counted by the HTTP adapter (startHttpServer's `durations`), written by exposition(). */
  readonly requestDurations = new RequestDurations();

  /** Everything /metrics serves: the registry's metrics, then the request-duration histogram. */
  async exposition(): Promise<string> {
    return `${await this.registry.metrics()}\n${this.requestDurations.exposition()}`;
  }

  /**
   * Verdicts counted since the last scrape, in a flat array indexed by (tier, degraded, cache_hit), folded into
   * the counter when /metrics is scraped. A prom-client child's inc() hashes its label set on every call
   * (0.2–0.5 µs per verdict in bench/micro); an array increment costs nothing measurable.
   */
  private readonly unscraped = new Float64Array(VERDICT_TIERS.length * 4);

  readonly verdicts = new Counter({
    name: 'ce_verdicts_total',
    help: 'Eligibility verdicts by tier ("none" when not found or degraded) and degradation',
    labelNames: ['tier', 'degraded', 'cache_hit'] as const,
    registers: [this.registry],
    collect: () => this.foldVerdicts(),
  });

  countVerdict(verdict: { tier: string | null; degraded: boolean; cache_hit: boolean }): void {
    const tier = tierIndex(verdict.tier);
    if (tier < 0) {
      this.verdicts.labels(verdict.tier ?? 'none', String(verdict.degraded), String(verdict.cache_hit)).inc();
      return;
    }
    const index = tier * 4 + (verdict.degraded ? 2 : 0) + (verdict.cache_hit ? 1 : 0);
    this.unscraped[index] = (this.unscraped[index] as number) + 1;
  }

  private foldVerdicts(): void {
    for (let index = 0; index < this.unscraped.length; index += 1) {
      const count = this.unscraped[index] as number;
      if (count === 0) continue;
      this.unscraped[index] = 0;
      this.verdicts.labels(VERDICT_TIERS[index >> 2] as string, String((index & 2) !== 0), String((index & 1) !== 0)).inc(count);
    }
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
