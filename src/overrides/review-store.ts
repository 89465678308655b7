// The review queue in Redis: one item per account and carrier that drew a `conditional` verdict, in the
// account's {ovr:<account>} slot. Items are merged with compare-and-set (review-set.lua), so sightings from several
// replicas and the batch and monitoring workers add up instead of overwriting each other.
import { isOneOf } from '../core/one-of.js';
import { z } from 'zod';
import type { ReasonEvidence } from '../core/evidence.js';
import type { RedisClient } from '../redis/connection.js';
import { luaScripts } from '../redis/scripts.js';
import type { OverrideKeys } from './keys.js';
import type { Reason } from '../core/reasons.js';

export const REVIEW_STATUSES = ['open', 'covered', 'closed'] as const;
export type ReviewStatus = (typeof REVIEW_STATUSES)[number];
export const isReviewStatus = (value: string): value is ReviewStatus => isOneOf(REVIEW_STATUSES, value);
export type ReviewSource = 'check' | 'batch_row' | 'monitoring';

export interface ReviewItem {
  id: string;
  mc_number: string;
  dot_number: string | null;
  legal_name: string | null;
  reasons: Reason[];
  evidence: ReasonEvidence[];
  first_seen_at: string;
  last_seen_at: string;
  seen_count: number;
  last_decision_id: string | null;
  /** Where it was last seen: a single check, a batch row or a monitoring verdict. */
  last_source: ReviewSource;
  status: ReviewStatus;
}

const itemSchema = z.object({
  id: z.string(), mc_number: z.string(), dot_number: z.string().nullable(), legal_name: z.string().nullable(),
  reasons: z.array(z.string()), evidence: z.array(z.object({
    reason: z.string(), source: z.string(), record_id: z.string().nullable(), facts: z.record(z.string(), z.unknown()),
    rule: z.record(z.string(), z.unknown()).nullable(),
  })), first_seen_at: z.string(), last_seen_at: z.string(), seen_count: z.number(), last_decision_id: z.string().nullable(),
  last_source: z.enum(['check', 'batch_row', 'monitoring']), status: z.enum(REVIEW_STATUSES),
});

export function reviewId(mc: string): string {
  return `rv_${mc}`;
}

function decodeItem(raw: string | null): ReviewItem | null {
  if (raw === null) return null;
  try {
    const parsed = itemSchema.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data as ReviewItem : null;
  } catch {
    return null;
  }
}

/** One sighting (or several, summed by a replica between writes) of a carrier's verdict for an account. */
export interface Sighting {
  mc: string;
  dot: string | null;
  legalName: string | null;
  /** The verdict's reasons when conditional (before overrides); [] when the carrier no longer draws a review. */
  reasons: Reason[];
  evidence: ReasonEvidence[];
  decisionId: string | null;
  source: ReviewSource;
  status: ReviewStatus;
  atMs: number;
  count: number;
}

const CAS_ATTEMPTS = 8;

export class ReviewStore {
  constructor(private readonly redis: RedisClient, private readonly keys: OverrideKeys) {}

  async get(account: string, mc: string): Promise<ReviewItem | null> {
    return decodeItem(await this.redis.hget(this.keys.reviews(account), mc));
  }

  /**
   * Merges a sighting into the account's item: created by a review verdict (a `closed` sighting of an unknown
   * carrier is nothing), updated otherwise. Returns the status before ('' when new) and after; null when
   * nothing was written.
   */
  async sight(account: string, sighting: Sighting): Promise<{ before: ReviewStatus | ''; after: ReviewStatus } | null> {
    for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt += 1) {
      const raw = await this.redis.hget(this.keys.reviews(account), sighting.mc);
      const current = decodeItem(raw);
      if (current === null && sighting.status === 'closed') return null;
      const at = new Date(sighting.atMs).toISOString();
      const next: ReviewItem = current === null
        ? {
          id: reviewId(sighting.mc), mc_number: sighting.mc, dot_number: sighting.dot, legal_name: sighting.legalName,
          reasons: sighting.reasons, evidence: sighting.evidence, first_seen_at: at, last_seen_at: at, seen_count: sighting.count,
          last_decision_id: sighting.decisionId, last_source: sighting.source, status: sighting.status,
        }
        : sighting.status === 'closed'
          ? { ...current, status: 'closed' }
          : {
            ...current, dot_number: sighting.dot ?? current.dot_number, legal_name: sighting.legalName ?? current.legal_name,
            reasons: sighting.reasons, evidence: sighting.evidence, last_seen_at: at > current.last_seen_at ? at : current.last_seen_at,
            seen_count: current.seen_count + sighting.count, last_decision_id: sighting.decisionId ?? current.last_decision_id,
            last_source: sighting.source, status: sighting.status,
          };
      if (current !== null && current.status === next.status && sighting.status === 'closed') return { before: current.status, after: next.status };
      const written = await luaScripts.reviewSet(this.redis, { reviews: this.keys.reviews(account), index: this.keys.reviewIndex(account) }, sighting.mc, raw ?? '', JSON.stringify(next));
      if (written) {
        if (current === null) await this.redis.sadd(this.keys.accounts, account);
        return { before: current?.status ?? '', after: next.status };
      }
    }
    throw new Error(`review item ${account}/${sighting.mc} kept moving; sighting not recorded`);
  }

  /** Up to `limit` items after the MC number `after` (exclusive), in MC order, and whether more may follow. */
  async page(account: string, after: string | null, limit: number): Promise<{ items: ReviewItem[]; last: string | null; more: boolean }> {
    const min = after === null ? '-inf' : `(${Number(after)}`;
    const mcs = await this.redis.zrangebyscore(this.keys.reviewIndex(account), min, '+inf', 'LIMIT', 0, limit + 1);
    const more = mcs.length > limit;
    const wanted = mcs.slice(0, limit);
    const raws = wanted.length === 0 ? [] : await this.redis.hmget(this.keys.reviews(account), ...wanted);
    const items = raws.map(decodeItem).filter((item): item is ReviewItem => item !== null);
    return { items, last: wanted[wanted.length - 1] ?? null, more };
  }
}
