// Overrides and clearances, pure: the request's validation (scope kinds and their longest durations, reason
// codes, what may be covered at all), the binding of a request to the facts it was made on, and the view the API
// and the console show. No Redis, HTTP or clock here.
import { isOneOf } from '../core/one-of.js';
import { z } from 'zod';
import { REASONS, type Reason } from '../core/reasons.js';
import type { ReasonEvidence } from '../core/evidence.js';
import type { Tier } from '../core/decide.js';
import type { VerdictOverride } from '../core/verdict.js';
import { AppError } from '../errors.js';
import { entryFingerprint, factsFingerprint, namesFingerprint } from './fingerprint.js';

export const OVERRIDE_REASON_CODES = [
  'false_positive_name_match', 'verified_with_carrier', 'verified_with_insurer', 'customer_requirement', 'one_time_approval', 'other',
] as const;
export type OverrideReasonCode = (typeof OVERRIDE_REASON_CODES)[number];

/** The sanctions review reasons: covered only by a clearance, bound to the list entries behind them. */
export const CLEARANCE_REASONS: ReadonlySet<Reason> = new Set<Reason>(['possible_ofac_match', 'possible_sam_exclusion', 'ofac_consolidated_match']);

export const OVERRIDE_STATUSES = ['pending_approval', 'active', 'rejected', 'revoked', 'expired', 'invalidated'] as const;
export type OverrideStatus = (typeof OVERRIDE_STATUSES)[number];
export type OverrideKind = 'clearance' | 'override';

export type OverrideScope = { reference: string } | { until: string } | { until_change: true };

export const DAY_MS = 86_400_000;
/** Longest life of each scope kind. */
export const MAX_REFERENCE_DAYS = 7;
export const MAX_UNTIL_DAYS = 365;
export const MAX_NOTE_CHARS = 2000;
export const MAX_ACTOR_CHARS = 128;
export const MAX_REFERENCE_CHARS = 256;

export const actorSchema = z.string().trim().min(1).max(MAX_ACTOR_CHARS);

export const overrideScopeSchema = z.union([
  z.object({ reference: z.string().min(1).max(MAX_REFERENCE_CHARS) }).strict(),
  z.object({ until: z.iso.datetime({ offset: true }) }).strict(),
  z.object({ until_change: z.literal(true) }).strict(),
]);

export const createOverrideBody = z.object({
  mc_number: z.string().min(1).max(16),
  reasons: z.array(z.string().min(1).max(64)).min(1).max(20),
  scope: overrideScopeSchema,
  reason_code: z.enum(OVERRIDE_REASON_CODES),
  note: z.string().max(MAX_NOTE_CHARS).nullable().optional(),
  actor: actorSchema.optional(),
}).strict();
export type CreateOverrideBody = z.infer<typeof createOverrideBody>;

export const decideBody = z.object({ actor: actorSchema.optional(), note: z.string().max(MAX_NOTE_CHARS).nullable().optional() }).strict();

/** What a list entry or a reason's facts looked like when the request was made (src/overrides/fingerprint.ts). */
export interface Binding {
  reason: Reason;
  /** The evidence source (ofac_sdn, ofac_cons, sam, insurance, census, ...). */
  source: string;
  /** The list's entry id, or the source's record id. */
  record_id: string | null;
  /** For a list entry: the name on the list that matched. */
  matched_name: string | null;
  fingerprint: string;
}

/** A short summary of a verdict, kept with every state change (before and after). */
export interface VerdictSummary {
  eligible: boolean;
  tier: Tier | null;
  reasons: Reason[];
}

export interface HistoryEntry {
  at: string;
  /** requested, approved, rejected, revoked, expired, invalidated, activated. */
  action: string;
  actor: string | null;
  note: string | null;
  status: OverrideStatus;
  verdict_before: VerdictSummary | null;
  verdict_after: VerdictSummary | null;
}

export interface OverrideRecord {
  id: string;
  account: string;
  kind: OverrideKind;
  status: OverrideStatus;
  mc_number: string;
  dot_number: string | null;
  legal_name: string | null;
  reasons: Reason[];
  scope: OverrideScope;
  reason_code: OverrideReasonCode;
  note: string | null;
  requested_by: string;
  requested_at: string;
  approved_by: string | null;
  approved_at: string | null;
  /** When it stops covering: the scope's until, or the kind's longest life from the request. */
  expires_at: string;
  /** Clearance: the carrier's names as screened (fingerprint); null for an override. */
  names_fingerprint: string | null;
  /** Clearance: every list entry behind its reasons; until_change override: the facts behind each reason; else []. */
  bindings: Binding[];
  /** The decision the request was made on. */
  decision_id: string | null;
  closed_at: string | null;
  closed_by: string | null;
  closed_note: string | null;
  updated_at: string;
}

/** What the replicas keep of an active override (the verdict path's copy). */
export interface ActiveOverride {
  id: string;
  account: string;
  mc_number: string;
  kind: OverrideKind;
  reasons: Reason[];
  reference: string | null;
  until_change: boolean;
  expires_at_ms: number;
  names_fingerprint: string | null;
  bindings: Binding[];
  /** The verdict's `overrides` item, built once. */
  view: AppliedOverride;
}

/** One item of a verdict's `overrides` field. */
export type AppliedOverride = VerdictOverride;

export function appliedView(record: OverrideRecord): AppliedOverride {
  return {
    id: record.id, kind: record.kind, reasons: record.reasons, reason_code: record.reason_code, scope: record.scope,
    expires_at: record.expires_at, requested_by: record.requested_by, approved_by: record.approved_by, approved_at: record.approved_at,
  };
}

export function toActive(record: OverrideRecord): ActiveOverride {
  return {
    id: record.id, account: record.account, mc_number: record.mc_number, kind: record.kind, reasons: record.reasons,
    reference: 'reference' in record.scope ? record.scope.reference : null,
    until_change: 'until_change' in record.scope, expires_at_ms: Date.parse(record.expires_at),
    names_fingerprint: record.names_fingerprint, bindings: record.bindings, view: appliedView(record),
  };
}

/** The reasons no override can ever cover: hard stops, degraded reasons and an unknown carrier. */
export function notOverridable(reason: string): boolean {
  const entry = (REASONS as Record<string, { kind: string } | undefined>)[reason];
  return entry === undefined || entry.kind !== 'review';
}

export interface RequestedCarrier {
  mc: string;
  found: boolean;
  degraded: boolean;
  tier: Tier | null;
  reasons: readonly Reason[];
  carrier: { dot_number: string | null; legal_name: string; dba_name: string | null } | null;
  evidence: readonly ReasonEvidence[];
  decision_id: string | null;
}

export interface ValidRequest {
  kind: OverrideKind;
  reasons: Reason[];
  expiresAtMs: number;
  namesFingerprint: string | null;
  bindings: Binding[];
}

const fieldError = (path: string, message: string, detail: string) => new AppError('validation_failed', detail, { errors: [{ path, message }] });

/**
 * Checks a request against the carrier's current verdict and binds it to the facts it was made on. Throws 422
 * not_overridable naming the first reason that can never be covered (requested, or standing in the verdict: an
 * override never lifts a blocked, degraded or not-found verdict), and 422 validation_failed for the rest.
 * `maxDays`: the account policy's overrides.max_days, or null.
 */
export function validateRequest(body: CreateOverrideBody, current: RequestedCarrier, nowMs: number, maxDays: number | null = null): ValidRequest {
  const requested = [...new Set(body.reasons)];
  for (const reason of requested) {
    if (notOverridable(reason)) {
      throw new AppError('not_overridable', `${reason} can never be overridden${reason === 'do_not_use' ? ' (the do-not-use list is managed with dnu)' : ''}.`, {
        errors: [{ path: 'reasons', message: `${reason} is not overridable` }], extensions: { reason },
      });
    }
  }
  const standing = current.degraded ? current.reasons[0] : current.reasons.find((reason) => notOverridable(reason) || (current.tier === 'blocked' && reason === 'conditional_safety_rating'));
  if (standing !== undefined || current.degraded || !current.found) {
    const reason = standing ?? 'carrier_not_found';
    throw new AppError('not_overridable', `The carrier's verdict carries ${reason}, which no override covers.`, {
      errors: [{ path: 'mc_number', message: `the verdict carries ${reason}` }], extensions: { reason },
    });
  }
  const reasons = requested as Reason[];
  const absent = reasons.find((reason) => !current.reasons.includes(reason));
  if (absent !== undefined) throw fieldError('reasons', `${absent} is not a reason of the carrier's current verdict`, `The carrier's current verdict does not carry ${absent}.`);
  const sanctions = reasons.filter((reason) => CLEARANCE_REASONS.has(reason));
  if (sanctions.length > 0 && sanctions.length < reasons.length) {
    throw fieldError('reasons', 'sanctions reasons are cleared on their own', 'A clearance covers only sanctions review reasons; request the other reasons as a separate override.');
  }
  const kind: OverrideKind = sanctions.length > 0 ? 'clearance' : 'override';
  if (body.reason_code === 'other' && !(body.note ?? '').trim()) throw fieldError('note', 'required when reason_code is other', 'reason_code other needs a note.');
  const expiresAtMs = scopeExpiry(body.scope, nowMs, maxDays);
  const bindings = kind === 'clearance' || 'until_change' in body.scope ? bind(reasons, current.evidence, kind) : [];
  return { kind, reasons, expiresAtMs, namesFingerprint: kind === 'clearance' ? namesFingerprint(current.carrier) : null, bindings };
}

/**
 * When a scope stops covering; throws when it asks for more than its kind allows or for the past. `maxDays` is the
 * account policy's `overrides.max_days` (null: none): it shortens the longest life of every scope kind, and an
 * `until` beyond it is refused naming the field and the policy.
 */
export function scopeExpiry(scope: OverrideScope, nowMs: number, maxDays: number | null = null): number {
  const cap = (days: number) => nowMs + Math.min(days, maxDays ?? days) * DAY_MS;
  if ('reference' in scope) return cap(MAX_REFERENCE_DAYS);
  if ('until_change' in scope) return cap(MAX_UNTIL_DAYS);
  const until = Date.parse(scope.until);
  if (!Number.isFinite(until) || until <= nowMs) throw fieldError('scope.until', 'must be in the future', 'scope.until must be a future RFC 3339 time.');
  if (until > nowMs + MAX_UNTIL_DAYS * DAY_MS) throw fieldError('scope.until', `must be at most ${MAX_UNTIL_DAYS} days ahead`, `scope.until may be at most ${MAX_UNTIL_DAYS} days ahead.`);
  if (maxDays !== null && until > cap(MAX_UNTIL_DAYS)) {
    throw fieldError('scope.until', `must be at most ${maxDays} days ahead (the account policy's overrides.max_days)`,
      `scope.until may be at most ${maxDays} days ahead: the account's policy sets overrides.max_days to ${maxDays}.`);
  }
  // Whole seconds: expiry is to the second.
  return Math.floor(until / 1000) * 1000;
}

/** The evidence items behind the requested reasons, each fingerprinted: list entries for a clearance, facts for an override. */
export function bind(reasons: readonly Reason[], evidence: readonly ReasonEvidence[], kind: OverrideKind): Binding[] {
  const wanted = new Set(reasons);
  return evidence.filter((item) => wanted.has(item.reason)).map((item) => ({
    reason: item.reason, source: item.source, record_id: item.record_id,
    matched_name: typeof item.facts.matched_name === 'string' ? item.facts.matched_name : null,
    fingerprint: kind === 'clearance' ? entryFingerprint(item) : factsFingerprint(item),
  }));
}

export function summary(verdict: { eligible: boolean; tier: Tier | null; reasons: readonly Reason[] } | null): VerdictSummary | null {
  return verdict === null ? null : { eligible: verdict.eligible, tier: verdict.tier, reasons: [...verdict.reasons] };
}

/** The status an override has at `nowMs`: an active one past its expiry is expired even before the sweep records it. */
export function statusAt(record: OverrideRecord, nowMs: number): OverrideStatus {
  if ((record.status === 'active' || record.status === 'pending_approval') && Date.parse(record.expires_at) <= nowMs) return 'expired';
  return record.status;
}

export const isOverrideStatus = (value: string): value is OverrideStatus => isOneOf(OVERRIDE_STATUSES, value);

export interface OverrideQuery {
  /** The status at this instant (an active override past its time is expired). */
  status: OverrideStatus | null;
  /** A normalised MC number. */
  mc: string | null;
  /** The id after which to go on (exclusive), null from the start. */
  after: string | null;
  limit: number;
}

/** One page of an account's overrides, newest first (ids are time-ordered), and the next page's cursor. */
export function pageOverrides(records: readonly OverrideRecord[], query: OverrideQuery, nowMs: number): { items: OverrideRecord[]; next_cursor: string | null } {
  const { status, mc, after, limit } = query;
  const matching = [...records].sort((a, b) => b.id.localeCompare(a.id))
    .filter((record) => (after === null || record.id < after) && (status === null || statusAt(record, nowMs) === status) && (mc === null || record.mc_number === mc));
  const items = matching.slice(0, limit);
  return { items, next_cursor: matching.length > limit ? items[items.length - 1]?.id ?? null : null };
}

/** The API's view of an override (the console's too): every field, stable order. */
export function overrideView(record: OverrideRecord, nowMs: number, history?: HistoryEntry[]): Record<string, unknown> {
  const { account: _account, ...rest } = record;
  return { ...rest, status: statusAt(record, nowMs), ...(history === undefined ? {} : { history }) };
}
