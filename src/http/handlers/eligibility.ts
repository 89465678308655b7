// POST /v1/eligibility. Order of checks: 401 → 403 → 429 → 400/422 → verdict. Backend trouble at any step
// becomes a 200 degraded verdict (eligible: false), never an error status.
import { z } from 'zod';
import type { Authenticator } from '../../auth/authenticate.js';
import { normaliseMcNumber } from '../../core/mc-number.js';
import { AppError } from '../../errors.js';
import { rateLimitHeaders, type BudgetLimiter } from '../../ratelimit/budget.js';
import { isUnrecorded, type EligibilityService, type Verdict } from '../../verdict/eligibility.js';
import type { Metrics } from '../../metrics.js';
import { parseJsonBody } from '../json-body.js';
import type { HttpRequest, HttpResponse, Route } from '../uws.js';

export const ELIGIBILITY_BODY_LIMIT = 4 * 1024;
/** A caller's own id for the check (load, tender), stored with the decision record. */
export const REFERENCE_MAX_CHARS = 128;

const MC_FORMAT_MESSAGE = 'must be 1–8 digits, optionally prefixed with MC, MC-, MC# or "MC "';

const eligibilityRequest = z.object({
  mc_number: z.string({ error: 'is required and must be a string' })
    .refine((value) => normaliseMcNumber(value) !== null, { message: MC_FORMAT_MESSAGE }),
  reference: z.string({ error: 'must be a string' })
    .max(REFERENCE_MAX_CHARS, { message: `must be at most ${REFERENCE_MAX_CHARS} characters` }).optional(),
});

export interface EligibilityDeps {
  auth: Authenticator;
  budget: BudgetLimiter;
  eligibility: EligibilityService;
  metrics: Metrics;
}

function verdictResponse(verdict: Verdict, headers: Record<string, string>, keyId: string | null, recorded: boolean): HttpResponse {
  return {
    status: 200,
    headers: { 'cache-control': 'no-store', ...headers },
    json: verdict,
    log: {
      key_id: keyId, decision_id: verdict.decision_id, mc_number: verdict.mc_number, eligible: verdict.eligible,
      tier: verdict.tier, reasons: verdict.reasons, ruleset_version: verdict.ruleset_version,
      data_as_of: verdict.data_as_of, cache_hit: verdict.cache_hit, recorded,
    },
  };
}

export function eligibilityRoute(deps: EligibilityDeps): Route {
  return {
    method: 'POST',
    pattern: '/v1/eligibility',
    maxBodyBytes: ELIGIBILITY_BODY_LIMIT,
    headers: ['x-api-key'],
    async handler(request: HttpRequest): Promise<HttpResponse> {
      const auth = await deps.auth.authenticate(request.headers['x-api-key'], 'eligibility', request.requestId);
      if (auth.kind === 'backend_unavailable') {
        // No key could be read, so no account to file a record under: this degraded verdict is logged only.
        const { mc_number } = parseJsonBody(request.body, eligibilityRequest);
        const verdict = await deps.eligibility.evaluate(normaliseMcNumber(mc_number) ?? mc_number, false);
        deps.metrics.countVerdict(verdict);
        return verdictResponse(verdict, {}, null, false);
      }
      const { key } = auth;
      const budget = await deps.budget.consume(key.id, key.rate_per_minute);
      const limitHeaders = rateLimitHeaders(budget);
      if (!budget.allowed) {
        throw new AppError('rate_limited', `The budget of ${budget.limit} checks per minute is spent; retry later.`, {
          headers: { 'retry-after': String(budget.retryAfterSeconds), ...limitHeaders },
        });
      }
      const { mc_number, reference } = parseJsonBody(request.body, eligibilityRequest);
      const mc = normaliseMcNumber(mc_number) ?? mc_number;
      const verdict = await deps.eligibility.check(mc, !budget.fromFallback, {
        kind: 'check', keyId: key.id, account: key.account, requestId: request.requestId, reference: reference ?? null,
        jobId: null, row: null,
      });
      deps.metrics.countVerdict(verdict);
      return verdictResponse(verdict, limitHeaders, key.id, !isUnrecorded(verdict));
    },
  };
}
