// GET /v1/reviews (scope `review`, or `approve`): the account's review queue, one item per carrier that drew a
// `conditional` verdict, in MC order with a cursor, each with its status now (src/overrides/review-queue.ts).
import type { CallGate } from '../auth/call-gate.js';
import { isOneOf } from '../core/one-of.js';
import { REASON_CODES } from '../core/reasons.js';
import { AppError } from '../errors.js';
import type { HttpRequest, Route } from '../http/types.js';
import type { Logger } from '../log.js';
import { managementRoute } from './route.js';
import { decodeReviewCursor, type ReviewQueue } from './review-queue.js';
import { isReviewStatus, REVIEW_STATUSES } from './review-store.js';

export interface ReviewRouteDeps {
  gate: CallGate;
  queue: ReviewQueue;
  log: Logger;
}

const validation = (detail: string, path: string, message: string) => new AppError('validation_failed', detail, { errors: [{ path, message }] });

export function reviewRoutes(deps: ReviewRouteDeps): Route[] {
  return [
    managementRoute(deps.gate, deps.log, 'GET', '/v1/reviews', 0, ['review', 'approve'], async (key, request: HttpRequest) => {
      const params = new URLSearchParams(request.query);
      const status = params.get('status');
      if (status !== null && !isReviewStatus(status)) throw validation('Query parameter status is not a review status.', 'status', `one of ${REVIEW_STATUSES.join(', ')}`);
      const reason = params.get('reason');
      if (reason !== null && !isOneOf(REASON_CODES, reason)) throw validation('Query parameter reason is not a reason code.', 'reason', 'must be a reason code');
      const limitRaw = params.get('limit');
      const limit = limitRaw === null ? 100 : Number(limitRaw);
      if (!Number.isInteger(limit) || limit < 1 || limit > 500) throw validation('Query parameter limit is out of range.', 'limit', 'must be an integer from 1 to 500');
      const afterRaw = params.get('after');
      const after = afterRaw === null ? null : decodeReviewCursor(afterRaw);
      if (afterRaw !== null && after === null) throw validation('Query parameter after is not a cursor of this list.', 'after', 'must be the next_cursor of a previous page');
      const page = await deps.queue.list(key.account, { status, reason, after, limit });
      return { status: 200, json: page };
    }),
  ];
}
