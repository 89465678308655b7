// The detector's leader loop: one worker at a time runs change detection (a lease in Redis, renewed atomically
// each tick and while a long tick runs, taken over when it lapses).
import { randomBytes } from 'node:crypto';
import type { Logger } from '../log.js';
import type { RedisClient } from '../redis/connection.js';
import { luaScripts } from '../redis/scripts.js';
import type { ChangeDetector, TickStats } from './detector.js';
import type { MonitoringMetrics } from './metrics.js';

/** Runs the detector on one worker at a time: a lease in Redis, renewed each tick, taken over when it lapses. */
export class DetectorLoop {
  private readonly token = randomBytes(8).toString('hex');
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private busy: Promise<void> = Promise.resolve();

  constructor(private readonly detector: ChangeDetector, private readonly redis: RedisClient, private readonly leaderKey: string,
    private readonly accountsKey: string, private readonly pollMs: number, private readonly log: Logger,
    private readonly metrics?: MonitoringMetrics) {}

  start(): void {
    this.running = true;
    const loop = async () => {
      if (!this.running) return;
      this.busy = this.once().then(() => undefined, (error: unknown) => {
        this.log.warn({ err: error }, 'monitoring detector tick failed; retrying');
      });
      await this.busy;
      if (this.running) this.timer = setTimeout(() => void loop(), this.pollMs);
    };
    void loop();
  }

  async once(): Promise<TickStats | null> {
    // Nothing to watch for: leave Redis untouched (no lease, no state) until the first account uses monitoring.
    if ((await this.redis.scard(this.accountsKey)) === 0) return null;
    const leaseMs = Math.max(10_000, this.pollMs * 20);
    const held = await this.redis.set(this.leaderKey, this.token, 'PX', leaseMs, 'NX');
    if (held !== 'OK' && !(await luaScripts.leaseRenew(this.redis, this.leaderKey, this.token, leaseMs))) return null;
    // A tick can outlast the lease (a first observation or a rule set change over a million pairs): keep it
    // renewed meanwhile, so no second worker starts detecting (and emitting) the same changes.
    const renew = setInterval(() => {
      void luaScripts.leaseRenew(this.redis, this.leaderKey, this.token, leaseMs).catch(() => false);
    }, Math.floor(leaseMs / 3));
    const started = performance.now();
    try {
      return await this.detector.tick();
    } finally {
      clearInterval(renew);
      this.metrics?.tickTook(performance.now() - started);
    }
  }

  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    await this.busy;
    await luaScripts.leaseRelease(this.redis, this.leaderKey, this.token).catch(() => false);
  }
}
