// The way in for every authenticated call but the eligibility check (which has its own hot path): the key
// (401/403, or 429 for an address over its failure limit), then one call from the key's calls budget (429).
// When Redis cannot be asked about the key the answer is a 503 with Retry-After, and the log says why.
import { AppError } from '../errors.js';
import type { Logger } from '../log.js';
import type { CallBudget } from '../ratelimit/call-budget.js';
import type { Scope, StoredApiKey } from './api-key.js';
import type { Authenticator } from './authenticate.js';
import type { RequestOrigin } from './client-address.js';

const UNAVAILABLE_RETRY_SECONDS = '5';

export interface GateRequest extends RequestOrigin {
  readonly requestId: string;
}

export interface Admitted {
  key: StoredApiKey;
  /** RateLimit fields of the draw, for the answer. */
  rateHeaders: Record<string, string>;
}

export class CallGate {
  constructor(
    private readonly auth: Pick<Authenticator, 'authenticate' | 'identify'>,
    private readonly calls: Pick<CallBudget, 'draw'>,
    private readonly log: Logger,
  ) {}

  /** Admits a call by any valid key, whatever its scopes (GET /v1/me). */
  async admitAny(request: GateRequest): Promise<Admitted> {
    const key = await this.auth.identify(request.headers['x-api-key'], request.requestId, request);
    return { key, rateHeaders: await this.calls.draw(key) };
  }

  /**
   * Admits a call by a key holding the first scope, or else any later one (a key without `eligibility` may hold
   * `batch`, whose rows are decisions too); the 403 names the first.
   */
  async admit(request: GateRequest, scopes: readonly [Scope, ...Scope[]]): Promise<Admitted> {
    const presented = request.headers['x-api-key'];
    let failure: unknown = null;
    for (const scope of scopes) {
      try {
        const result = await this.auth.authenticate(presented, scope, request.requestId, request);
        if (result.kind === 'backend_unavailable') {
          this.log.warn({ err: result.cause, request_id: request.requestId }, 'api key lookup failed; answering 503');
          throw new AppError('service_unavailable', 'API keys cannot be checked right now; retry shortly.', {
            cause: result.cause, headers: { 'retry-after': UNAVAILABLE_RETRY_SECONDS },
          });
        }
        return { key: result.key, rateHeaders: await this.calls.draw(result.key) };
      } catch (error) {
        if (!(error instanceof AppError) || error.kind !== 'forbidden') throw error;
        failure ??= error;
      }
    }
    throw failure;
  }
}
