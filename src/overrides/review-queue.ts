// The review queue as the API and the CLI list it: each item's status is the truth at this instant (the
// carrier's verdict decided again, not recorded, and the account's active overrides applied), so an item is
// `covered` while they cover every reason and `closed` once the carrier no longer draws a review verdict. A
// stored status that moved is brought up to date (and an item found open again is announced).
import type { Verdict } from '../core/verdict.js';
import type { Reason } from '../core/reasons.js';
import { coverage } from './coverage.js';
import type { ActiveOverride } from './model.js';
import type { ReviewItem, ReviewStatus, ReviewStore } from './review-store.js';

export interface ReviewQueueDeps {
  reviews: ReviewStore;
  /** The account's active overrides for a carrier (the replica's registry, or the store for a tool). */
  activeFor(account: string, mc: string): readonly ActiveOverride[] | Promise<readonly ActiveOverride[]>;
  evaluate(mc: string, account: string): Promise<Verdict>;
  /** Told when an item is found open again (review.opened). */
  opened(account: string, verdict: Verdict): void;
  now(): number;
}

export interface ReviewQuery {
  status: ReviewStatus | null;
  reason: Reason | null;
  /** MC number after which to go on (exclusive), null from the start. */
  after: string | null;
  limit: number;
}

/** Reads of the stored queue per listing: filters apply to each item's status now, so a page may need several. */
const SCAN_PAGES = 10;

export function encodeReviewCursor(mc: string): string {
  return `r1.${mc}`;
}

export function decodeReviewCursor(cursor: string): string | null {
  return /^r1\.\d{1,8}$/.test(cursor) ? cursor.slice(3) : null;
}

export class ReviewQueue {
  constructor(private readonly deps: ReviewQueueDeps) {}

  /** The item as of now; its stored status is brought up to date when it moved. */
  async current(account: string, item: ReviewItem): Promise<ReviewItem> {
    const verdict = await this.deps.evaluate(item.mc_number, account);
    // Degraded: nothing can be said about the carrier now; the item stays as last seen.
    if (verdict.degraded) return item;
    let status: ReviewStatus = 'closed';
    if (verdict.tier === 'conditional') {
      status = coverage(verdict, await this.deps.activeFor(account, item.mc_number), null, this.deps.now()).covered ? 'covered' : 'open';
    }
    const next: ReviewItem = status === 'closed' ? { ...item, status } : {
      ...item, status, reasons: verdict.reasons, evidence: verdict.evidence.reasons,
      dot_number: verdict.carrier?.dot_number ?? item.dot_number, legal_name: verdict.carrier?.legal_name ?? item.legal_name,
    };
    if (status !== item.status) {
      const result = await this.deps.reviews.sight(account, {
        mc: item.mc_number, dot: next.dot_number, legalName: next.legal_name, reasons: next.reasons, evidence: next.evidence,
        decisionId: null, source: item.last_source, status, atMs: this.deps.now(), count: 0,
      });
      if (result !== null && result.after === 'open' && result.before !== 'open') this.deps.opened(account, verdict);
    }
    return next;
  }

  /** Up to `limit` items matching the query, in MC order, and the cursor of the next page (null at the end). */
  async list(account: string, query: ReviewQuery): Promise<{ items: ReviewItem[]; next_cursor: string | null }> {
    const items: ReviewItem[] = [];
    let after = query.after;
    let more = true;
    // A bounded number of reads per listing; the cursor says where the next one goes on.
    for (let page = 0; page < SCAN_PAGES && more && items.length < query.limit; page += 1) {
      const read = await this.deps.reviews.page(account, after, query.limit - items.length);
      const fresh = await Promise.all(read.items.map((item) => this.current(account, item)));
      for (const item of fresh) {
        if ((query.status === null || item.status === query.status) && (query.reason === null || item.reasons.includes(query.reason))) items.push(item);
      }
      more = read.more;
      after = read.last ?? after;
    }
    return { items, next_cursor: more && after !== null ? encodeReviewCursor(after) : null };
  }
}
