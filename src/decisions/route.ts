// GET /v1/decisions/{id}: the record of a verdict (single check or batch row) for any key of the account that
// asked, from Redis within its window and from the archive beyond it, with the same body. Scope `eligibility`
// or `batch` (whoever may make decisions may read them back); each read draws from the key's calls budget
// (src/ratelimit/call-budget.ts). Unknown ids, malformed ids and another account's ids all get one identical
// 404. Redis or archive trouble is a 503 with Retry-After: a record cannot be read without them (the
// fail-closed 200 rule is for verdicts).
// GET /v1/decisions?mc_number=&from=&to=: the account's records in a time range (of one carrier when
// mc_number is given), window and archive, in decision-id order, paginated by next_cursor. Scope `eligibility`.
import type { CallGate } from '../auth/call-gate.js';
import { normaliseMcNumber } from '../core/mc-number.js';
import { AppError, type FieldError } from '../errors.js';
import { FIND_MAX_LIMIT, type DecisionLookup } from './lookup.js';
import type { Logger } from '../log.js';
import type { HttpResponse, Route } from '../http/types.js';

const UNAVAILABLE_RETRY_SECONDS = '5';

export interface DecisionsDeps {
  gate: CallGate;
  decisions: DecisionLookup;
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
        const found = await deps.decisions.read(id);
        view = found && found.account === key.account ? found : null;
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

function parseInstant(params: URLSearchParams, name: string, errors: FieldError[]): number {
  const raw = params.get(name);
  const ms = raw === null ? Number.NaN : Date.parse(raw);
  if (raw === null || !/^\d{4}-\d{2}-\d{2}/.test(raw) || !Number.isFinite(ms)) errors.push({ path: name, message: 'must be an ISO 8601 date or time' });
  return ms;
}

export function decisionSearchRoute(deps: DecisionsDeps): Route {
  return {
    method: 'GET',
    pattern: '/v1/decisions',
    maxBodyBytes: 0,
    headers: ['x-api-key', 'x-forwarded-for'],
    async handler(request): Promise<HttpResponse> {
      const { key, rateHeaders } = await deps.gate.admit(request, ['eligibility']);
      const params = new URLSearchParams(request.query);
      const errors: FieldError[] = [];
      const fromMs = parseInstant(params, 'from', errors);
      const toMs = parseInstant(params, 'to', errors);
      if (errors.length === 0 && toMs <= fromMs) errors.push({ path: 'to', message: 'must be after from' });
      const mcRaw = params.get('mc_number');
      const mc = mcRaw === null ? null : normaliseMcNumber(mcRaw);
      if (mcRaw !== null && mc === null) errors.push({ path: 'mc_number', message: 'must be an MC number (digits, optionally prefixed MC)' });
      const limitRaw = params.get('limit');
      const limit = limitRaw === null ? 100 : Number(limitRaw);
      if (!Number.isInteger(limit) || limit < 1 || limit > FIND_MAX_LIMIT) errors.push({ path: 'limit', message: `must be an integer from 1 to ${FIND_MAX_LIMIT}` });
      if (errors.length > 0) throw new AppError('validation_failed', 'The search parameters are not valid.', { errors });
      let page;
      try {
        page = await deps.decisions.find({ account: key.account, mc, fromMs, toMs, limit, cursor: params.get('cursor') });
      } catch (error) {
        if (error instanceof RangeError && error.message === 'cursor') {
          throw new AppError('validation_failed', 'The cursor is not one this search returned.', { errors: [{ path: 'cursor', message: 'must be the next_cursor of a previous page' }] });
        }
        deps.log.warn({ err: error, request_id: request.requestId }, 'decision search failed');
        throw unavailable(error);
      }
      return {
        status: 200,
        headers: { 'cache-control': 'no-store', ...rateHeaders },
        json: page,
        log: { key_id: key.id, rows: page.items.length },
      };
    },
  };
}
