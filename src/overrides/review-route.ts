// GET /v1/reviews (scope `review`, or `approve`): the account's review queue, one item per carrier that drew a
// `conditional` verdict, in MC order with a cursor. Each item's status is the truth at this instant: the
// carrier's verdict is decided again (not recorded) and the account's active overrides applied, so an item is
// `covered` while they cover every reason and `closed` once the carrier no longer draws a review verdict.
import type { CallGate } from '../auth/call-gate.js';
import type { Verdict } from '../core/verdict.js';
import { REASON_CODES } from '../core/reasons.js';
import { AppError } from '../errors.js';
import type { HttpRequest, Route } from '../http/types.js';
import type { Logger } from '../log.js';
import { coverage } from './coverage.js';
import type { OverrideRegistry } from './registry.js';
import { managementRoute } from './route.js';
import { REVIEW_STATUSES, type ReviewItem, type ReviewStatus, type ReviewStore } from './review-store.js';

export interface ReviewRouteDeps {
  gate: CallGate;
  reviews: ReviewStore;
  registry: OverrideRegistry;
  evaluate(mc: string, account: string): Promise<Verdict>;
  /** Told when an item is found open again (review.opened). */
  opened(account: string, verdict: Verdict): void;
  now(): number;
  log: Logger;
}

const SCAN_PAGES = 10;
const validation = (detail: string, path: string, message: string) => new AppError('validation_failed', detail, { errors: [{ path, message }] });

export function encodeReviewCursor(mc: string): string {
  return `r1.${mc}`;
}

function decodeReviewCursor(cursor: string): string | null {
  return /^r1\.\d{1,8}$/.test(cursor) ? cursor.slice(3) : null;
}

export function reviewRoutes(deps: ReviewRouteDeps): Route[] {
  /** The item as of now; its stored status is brought up to date when it moved. */
  async function current(account: string, item: ReviewItem): Promise<ReviewItem> {
    const verdict = await deps.evaluate(item.mc_number, account);
    // Degraded: nothing can be said about the carrier now; the item stays as last seen.
    if (verdict.degraded) return item;
    let status: ReviewStatus = 'closed';
    if (verdict.tier === 'conditional') {
      status = coverage(verdict, deps.registry.forCarrier(account, item.mc_number), null, deps.now()).covered ? 'covered' : 'open';
    }
    const next: ReviewItem = status === 'closed' ? { ...item, status } : {
      ...item, status, reasons: verdict.reasons, evidence: verdict.evidence.reasons,
      dot_number: verdict.carrier?.dot_number ?? item.dot_number, legal_name: verdict.carrier?.legal_name ?? item.legal_name,
    };
    if (status !== item.status) {
      const result = await deps.reviews.sight(account, {
        mc: item.mc_number, dot: next.dot_number, legalName: next.legal_name, reasons: next.reasons, evidence: next.evidence,
        decisionId: null, source: item.last_source, status, atMs: deps.now(), count: 0,
      });
      if (result !== null && result.after === 'open' && result.before !== 'open') deps.opened(account, verdict);
    }
    return next;
  }

  return [
    managementRoute(deps.gate, deps.log, 'GET', '/v1/reviews', 0, ['review', 'approve'], async (key, request: HttpRequest) => {
      const params = new URLSearchParams(request.query);
      const status = params.get('status');
      if (status !== null && !(REVIEW_STATUSES as readonly string[]).includes(status)) throw validation('Query parameter status is not a review status.', 'status', `one of ${REVIEW_STATUSES.join(', ')}`);
      const reason = params.get('reason');
      if (reason !== null && !(REASON_CODES as readonly string[]).includes(reason)) throw validation('Query parameter reason is not a reason code.', 'reason', 'must be a reason code');
      const limitRaw = params.get('limit');
      const limit = limitRaw === null ? 100 : Number(limitRaw);
      if (!Number.isInteger(limit) || limit < 1 || limit > 500) throw validation('Query parameter limit is out of range.', 'limit', 'must be an integer from 1 to 500');
      const afterRaw = params.get('after');
      let after = afterRaw === null ? null : decodeReviewCursor(afterRaw);
      if (afterRaw !== null && after === null) throw validation('Query parameter after is not a cursor of this list.', 'after', 'must be the next_cursor of a previous page');
      const items: ReviewItem[] = [];
      let more = true;
      // Filters apply to each item's status now, so a page may need more than one read; a bounded number of
      // reads per request, and the cursor says where the next request goes on.
      for (let page = 0; page < SCAN_PAGES && more && items.length < limit; page += 1) {
        const read = await deps.reviews.page(key.account, after, limit - items.length);
        const fresh = await Promise.all(read.items.map((item) => current(key.account, item)));
        for (const item of fresh) {
          if ((status === null || item.status === status) && (reason === null || item.reasons.includes(reason as ReviewItem['reasons'][number]))) items.push(item);
        }
        more = read.more;
        after = read.last ?? after;
      }
      return { status: 200, json: { items, next_cursor: more && after !== null ? encodeReviewCursor(after) : null } };
    }),
  ];
}
