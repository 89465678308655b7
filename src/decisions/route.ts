// GET /v1/decisions/{id}: the record of a verdict (single check or batch row) for any key of the account that
// asked. Scope `eligibility` or `batch` (whoever may make decisions may read them back); each read draws from the
// key's calls budget (src/ratelimit/call-budget.ts). Unknown ids, malformed
// ids and another account's ids all get one identical 404 after the same single read. Redis trouble is a 503
// with Retry-After: a record cannot be read without it (the fail-closed 200 rule is for verdicts).
import type { CallGate } from '../auth/call-gate.js';
import type { DecisionReader } from './reader.js';
import { AppError } from '../errors.js';
import type { Logger } from '../log.js';
import type { HttpResponse, Route } from '../http/types.js';

const UNAVAILABLE_RETRY_SECONDS = '5';

export interface DecisionsDeps {
  gate: CallGate;
  decisions: DecisionReader;
  log: Logger;
}

const unavailable = (cause?: unknown) => new AppError('service_unavailable', 'Decision records are temporarily unavailable; retry shortly.', {
  cause, headers: { 'retry-after': UNAVAILABLE_RETRY_SECONDS },
});

export function decisionsRoute(deps: DecisionsDeps): Route {
  return {
    method: 'GET',
    pattern: '/v1/decisions/:id',
    maxBodyBytes: 0,
    headers: ['x-api-key', 'x-forwarded-for'],
    async handler(request): Promise<HttpResponse> {
      // A key without `eligibility` may still hold `batch`, whose rows are decisions too.
      const { key, rateHeaders } = await deps.gate.admit(request, ['eligibility', 'batch']);
      const id = request.params[0] ?? '';
      let view;
      try {
        const stored = await deps.decisions.readStored(id);
        view = stored && stored.context.account === key.account ? await deps.decisions.view(stored) : null;
      } catch (error) {
        deps.log.warn({ err: error, request_id: request.requestId, decision_id: id }, 'decision record unreadable');
        throw unavailable(error);
      }
      if (!view) throw new AppError('not_found', 'No decision with this id exists for this account.');
      return {
        status: 200,
        headers: { 'cache-control': 'no-store', ...rateHeaders },
        json: view,
        log: { key_id: key.id, decision_id: id },
      };
    },
  };
}
