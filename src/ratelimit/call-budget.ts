// The per-key budget of every authenticated call other than an eligibility check (decision and batch reads,
// batch submission, watch list, webhooks, the event feed): its own sliding window next to the checks' one, so
// reading back and managing never starve checks, and the other way round. Its limit is
// API_CALL_RATE_PER_MINUTE, or the key's own check rate when that is higher (a high-volume key may read back
// as fast as it checks). Answers carry RateLimit-Policy / RateLimit fields of the policy "calls".
import type { StoredApiKey } from '../auth/api-key.js';
import { AppError } from '../errors.js';
import { WINDOW_MS, type BudgetDecision, type BudgetLimiter } from './budget.js';

export const CALLS_POLICY = 'calls';

export class CallBudget {
  constructor(private readonly budget: Pick<BudgetLimiter, 'consume'>, private readonly perMinute: number) {}

  limitFor(key: StoredApiKey): number {
    return Math.max(this.perMinute, key.rate_per_minute);
  }

  /** Draws one call for the key: its RateLimit headers, or the 429 (with them and Retry-After) when spent. */
  async draw(key: StoredApiKey): Promise<Record<string, string>> {
    const limit = this.limitFor(key);
    // The key id is 12 of [a-z0-9], so this window never shares Redis keys with the checks' one.
    const decision = await this.budget.consume(`${key.id}:${CALLS_POLICY}`, limit);
    const headers = callHeaders(decision);
    if (!decision.allowed) {
      throw new AppError('rate_limited', `The budget of ${limit} API calls per minute is spent; retry later.`, {
        headers: { 'retry-after': String(decision.retryAfterSeconds), ...headers },
      });
    }
    return headers;
  }
}

/** draft-ietf-httpapi-ratelimit-headers fields of a calls decision. */
export function callHeaders(decision: BudgetDecision): Record<string, string> {
  return {
    'ratelimit-policy': `"${CALLS_POLICY}";q=${decision.limit};w=${WINDOW_MS / 1000}`,
    ratelimit: `"${CALLS_POLICY}";r=${decision.remaining};t=${decision.allowed ? decision.resetSeconds : decision.retryAfterSeconds}`,
  };
}
