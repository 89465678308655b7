// Per-key rate budgets: an exact sliding 60 s window in Redis (src/lua/sliding-window-draw.lua).
// Requests for the same key within one event-loop turn are coalesced into a single N-point draw, so one
// Redis round trip serves many requests while the budget stays exact. When Redis fails, an in-memory
// limiter (rate-limiter-flexible) stands in per replica, and the caller is told the backend is down.
import { randomBytes } from 'node:crypto';
import type { RedisClient } from '../redis/connection.js';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { luaScripts, type DrawResult } from '../redis/scripts.js';
import type { RedisKeys } from '../store/keys.js';

export const WINDOW_MS = 60_000;

export interface BudgetDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Whole seconds until a retry can succeed (≥ 1) when not allowed. */
  retryAfterSeconds: number;
  /** Whole seconds until the window is empty again. */
  resetSeconds: number;
  /** True when Redis could not be asked and the in-memory stand-in decided. */
  fromFallback: boolean;
}

interface Waiter {
  resolve: (decision: BudgetDecision) => void;
}

interface PendingDraw {
  limit: number;
  waiters: Waiter[];
}

export class BudgetLimiter {
  private readonly pending = new Map<string, PendingDraw>();
  private flushScheduled = false;
  private readonly fallbacks = new Map<number, RateLimiterMemory>();
  private readonly tokenBase = randomBytes(6).toString('base64url');
  private sequence = 0;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
    /** Told about every Redis failure so the rest of the replica can fail closed at once. */
    private readonly onRedisFailure: (error: unknown) => void,
    private readonly redisUsable: () => boolean = () => true,
  ) {}

  /** Takes one point for a single check; coalesced with other requests of the same key in this turn. */
  consume(keyId: string, limit: number): Promise<BudgetDecision> {
    return new Promise((resolve) => {
      let draw = this.pending.get(keyId);
      if (!draw) {
        draw = { limit, waiters: [] };
        this.pending.set(keyId, draw);
      }
      draw.waiters.push({ resolve });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /**
   * Draws up to `wanted` points at once, for batch workers. `limit` may be lower than the key's budget to
   * leave headroom for single checks. Throws when Redis fails: batch work waits rather than guessing.
   */
  async drawUpTo(keyId: string, limit: number, wanted: number): Promise<{ admitted: number; retryAfterMs: number }> {
    const { admitted, retryAfterMs } = await this.callScript(keyId, limit, wanted);
    return { admitted, retryAfterMs };
  }

  private flush(): void {
    this.flushScheduled = false;
    const draws = [...this.pending];
    this.pending.clear();
    for (const [keyId, draw] of draws) void this.settle(keyId, draw);
  }

  private async settle(keyId: string, draw: PendingDraw): Promise<void> {
    const wanted = draw.waiters.length;
    if (this.redisUsable()) {
      try {
        const { admitted, remaining, retryAfterMs, resetMs } = await this.callScript(keyId, draw.limit, wanted);
        draw.waiters.forEach((waiter, index) => waiter.resolve({
          allowed: index < admitted,
          limit: draw.limit,
          remaining,
          retryAfterSeconds: Math.max(1, Math.ceil(retryAfterMs / 1000)),
          resetSeconds: Math.max(0, Math.ceil(resetMs / 1000)),
          fromFallback: false,
        }));
        return;
      } catch (error) {
        this.onRedisFailure(error);
      }
    }
    for (const waiter of draw.waiters) waiter.resolve(await this.consumeFallback(keyId, draw.limit));
  }

  private callScript(keyId: string, limit: number, wanted: number): Promise<DrawResult> {
    const token = `${this.tokenBase}${(this.sequence++).toString(36)}`;
    return luaScripts.slidingWindowDraw(this.redis, { log: this.keys.rateLog(keyId), sum: this.keys.rateSum(keyId) }, limit, WINDOW_MS, wanted, token);
  }

  private async consumeFallback(keyId: string, limit: number): Promise<BudgetDecision> {
    let limiter = this.fallbacks.get(limit);
    if (!limiter) {
      limiter = new RateLimiterMemory({ points: limit, duration: WINDOW_MS / 1000 });
      this.fallbacks.set(limit, limiter);
    }
    try {
      const result = await limiter.consume(keyId, 1);
      return {
        allowed: true, limit, remaining: result.remainingPoints,
        retryAfterSeconds: 1, resetSeconds: Math.ceil(result.msBeforeNext / 1000), fromFallback: true,
      };
    } catch (rejection) {
      const msBeforeNext = rejection instanceof RateLimiterRes ? rejection.msBeforeNext : WINDOW_MS;
      return {
        allowed: false, limit, remaining: 0, retryAfterSeconds: Math.max(1, Math.ceil(msBeforeNext / 1000)),
        resetSeconds: Math.ceil(msBeforeNext / 1000), fromFallback: true,
      };
    }
  }
}

/** IETF RateLimit-Policy / RateLimit fields (draft-ietf-httpapi-ratelimit-headers) for a decision. */
export function rateLimitHeaders(decision: BudgetDecision): Record<string, string> {
  return {
    'ratelimit-policy': `"key";q=${decision.limit};w=${WINDOW_MS / 1000}`,
    ratelimit: `"key";r=${decision.remaining};t=${decision.allowed ? decision.resetSeconds : decision.retryAfterSeconds}`,
  };
}
