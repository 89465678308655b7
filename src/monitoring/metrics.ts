// Prometheus metrics of monitoring, registered on the service's one registry (src/metrics.ts) so /metrics shows
// them next to the rest. Label children are bound once here: the detector and the deliverers only call inc() or
// observe() on a ready child, never resolve a label set per event.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { EVENT_TYPES, type EventType } from './events-model.js';

/**
 * delivered: an attempt the receiver accepted (2xx, replays included). retry: an attempt it did not accept (each
 * is retried unless the event is then given up or the endpoint disabled). failed: an event given up after the
 * retry window. disabled: an endpoint disabled by 410 Gone.
 */
export const DELIVERY_OUTCOMES = ['delivered', 'retry', 'failed', 'disabled'] as const;
export type DeliveryOutcome = (typeof DELIVERY_OUTCOMES)[number];

/** An endpoint's backlog entry older than this was not looked at by this worker lately (another one owns it). */
const BACKLOG_STALE_MS = 10_000;

export class MonitoringMetrics {
  private readonly eventsByType: ReadonlyMap<EventType, Counter.Internal>;
  private readonly deliveriesByOutcome: Readonly<Record<DeliveryOutcome, Counter.Internal>>;
  private readonly deliverySeconds: Histogram;
  private readonly tickSeconds: Histogram;
  /** Endpoint → stream time (ms) of the oldest event past its cursor, and when this worker last saw it. */
  private readonly backlog = new Map<string, { oldestMs: number; seenAt: number }>();

  constructor(registry: Registry, private readonly now: () => number = Date.now) {
    const events = new Counter({
      name: 'ce_monitoring_events_total', help: 'Monitoring events stored (one per account), by type',
      labelNames: ['type'] as const, registers: [registry],
    });
    this.eventsByType = new Map(EVENT_TYPES.map((type) => [type, events.labels(type)]));
    const deliveries = new Counter({
      name: 'ce_webhook_deliveries_total',
      help: 'Webhook attempts by outcome (delivered, retry = not accepted), events given up (failed), endpoints disabled by 410',
      labelNames: ['outcome'] as const, registers: [registry],
    });
    this.deliveriesByOutcome = {
      delivered: deliveries.labels('delivered'), retry: deliveries.labels('retry'), failed: deliveries.labels('failed'), disabled: deliveries.labels('disabled'),
    };
    // Every series exists from the start at 0, so rate() and alerts see a first increase rather than a new series.
    for (const child of [...this.eventsByType.values(), ...Object.values(this.deliveriesByOutcome)]) child.inc(0);
    this.deliverySeconds = new Histogram({
      name: 'ce_webhook_delivery_duration_seconds', help: 'Time of one webhook attempt, until the receiver answered or it failed',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30], registers: [registry],
    });
    this.tickSeconds = new Histogram({
      name: 'ce_monitoring_detector_tick_seconds', help: 'Duration of one change-detector tick on the leading worker',
      buckets: [0.001, 0.005, 0.025, 0.1, 0.5, 1, 5, 15, 30, 60, 300], registers: [registry],
    });
    const backlog = this.backlog;
    const clock = this.now;
    new Gauge({
      name: 'ce_webhook_oldest_undelivered_seconds',
      help: 'Age of the oldest event not yet delivered to an endpoint this worker delivers (0: none waiting)',
      registers: [registry],
      collect() {
        const now = clock();
        let oldest = now;
        for (const [endpoint, entry] of backlog) {
          if (now - entry.seenAt > BACKLOG_STALE_MS) backlog.delete(endpoint);
          else if (entry.oldestMs < oldest) oldest = entry.oldestMs;
        }
        this.set(Math.max(0, (now - oldest) / 1000));
      },
    });
  }

  eventStored(type: EventType): void {
    this.eventsByType.get(type)?.inc();
  }

  delivery(outcome: DeliveryOutcome): void {
    this.deliveriesByOutcome[outcome].inc();
  }

  attemptTook(ms: number): void {
    this.deliverySeconds.observe(ms / 1000);
  }

  tickTook(ms: number): void {
    this.tickSeconds.observe(ms / 1000);
  }

  /** The oldest event past an endpoint's cursor (stream time, ms), or null when it has none waiting. */
  backlogOf(endpoint: string, oldestMs: number | null): void {
    if (oldestMs === null) this.backlog.delete(endpoint);
    else this.backlog.set(endpoint, { oldestMs, seenAt: this.now() });
  }

  /** The endpoint was looked at and still waits on the same event (backing off). */
  backlogSeen(endpoint: string): void {
    const entry = this.backlog.get(endpoint);
    if (entry) entry.seenAt = this.now();
  }
}
