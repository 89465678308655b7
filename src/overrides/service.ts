// The override use cases: request, approve, reject, revoke, and the two the service itself performs (expire,
// invalidate). Each is a compare-and-set state change in the account's slot with its history entry (actor, time,
// note, verdict summary before and after), then the replicas' projection, then the account's monitoring events.
import { v7 as uuidv7 } from 'uuid';
import { isoTimestamp } from '../core/dates.js';
import { normaliseMcNumber } from '../core/mc-number.js';
import { AppError } from '../errors.js';
import type { Logger } from '../log.js';
import type { MonitoringEvent } from '../monitoring/index.js';
import type { PublishedPolicy } from '../policy/index.js';
import type { ReviewStore } from './review-store.js';
import type { Verdict } from '../core/verdict.js';
import { coverage } from './coverage.js';
import {
  summary, toActive, validateRequest, type CreateOverrideBody, type HistoryEntry, type OverrideRecord, type OverrideStatus, type VerdictSummary,
} from './model.js';
import type { OverrideStore, ReadRecord } from './store.js';

export interface EventSink {
  append(batch: ReadonlyArray<{ account: string; event: MonitoringEvent }>): Promise<void>;
}

export interface OverrideServiceDeps {
  store: OverrideStore;
  reviews: ReviewStore;
  /** The carrier's verdict as the service decides it now, before any override (not recorded). */
  evaluate(mc: string, account: string): Promise<Verdict>;
  events: EventSink | null;
  /** The account's current policy (src/policy): its `overrides` section says whether overrides need a second person and how long they may run. */
  policyOf(account: string): Promise<Pick<PublishedPolicy, 'policy'> | null>;
  now(): number;
  log: Logger;
}

type Action = 'requested' | 'approved' | 'rejected' | 'revoked' | 'expired' | 'invalidated';

const EVENT_OF: Partial<Record<Action, MonitoringEvent['type']>> = {
  approved: 'override.activated', revoked: 'override.revoked', expired: 'override.expired', invalidated: 'override.invalidated',
};

const notFound = () => new AppError('not_found', 'No override with this id exists for this account.');

/** Two spellings of one person's name are the same actor: case and surrounding space are not a second person. */
export function sameActor(a: string | null, b: string | null): boolean {
  return a !== null && b !== null && a.trim().toLowerCase() === b.trim().toLowerCase();
}

export function newOverrideId(): string {
  return `ovr_${uuidv7().replaceAll('-', '')}`;
}

export class OverrideService {
  constructor(private readonly deps: OverrideServiceDeps) {}

  async create(account: string, actor: string, body: CreateOverrideBody): Promise<OverrideRecord> {
    const mc = normaliseMcNumber(body.mc_number);
    if (mc === null) throw new AppError('validation_failed', 'mc_number is not an MC number.', { errors: [{ path: 'mc_number', message: 'must be 1-8 digits with an optional MC prefix' }] });
    const nowMs = this.deps.now();
    const [verdict, policy] = await Promise.all([this.deps.evaluate(mc, account), this.deps.policyOf(account)]);
    const rules = policy?.policy.overrides;
    const valid = validateRequest(body, {
      mc, found: verdict.found, degraded: verdict.degraded, tier: verdict.tier, reasons: verdict.reasons, carrier: verdict.carrier,
      evidence: verdict.evidence.reasons, decision_id: null,
    }, nowMs, rules?.max_days ?? null);
    // A clearance always needs a second person; an override too unless the account's policy says four_eyes: false.
    const needsApproval = valid.kind === 'clearance' || rules?.four_eyes !== false;
    const at = isoTimestamp(nowMs);
    const record: OverrideRecord = {
      id: newOverrideId(), account, kind: valid.kind, status: needsApproval ? 'pending_approval' : 'active', mc_number: mc,
      dot_number: verdict.carrier?.dot_number ?? null, legal_name: verdict.carrier?.legal_name ?? null, reasons: valid.reasons,
      scope: body.scope, reason_code: body.reason_code, note: body.note ?? null, requested_by: actor, requested_at: at,
      approved_by: null, approved_at: needsApproval ? null : at, expires_at: isoTimestamp(valid.expiresAtMs),
      names_fingerprint: valid.namesFingerprint, bindings: valid.bindings, decision_id: verdict.decision_id,
      closed_at: null, closed_by: null, closed_note: null, updated_at: at,
    };
    const before = summary(verdict);
    const after = needsApproval ? before : await this.summaryWith(account, verdict, record);
    const entry = this.entry(nowMs, 'requested', actor, body.note ?? null, record.status, before, after);
    if (!await this.deps.store.transition('', record, 'requested', entry)) throw new Error('override id collision');
    if (record.status === 'active') {
      await this.deps.store.project(record);
      await this.emit(record, 'approved', actor, body.note ?? null, before, after, nowMs);
    }
    return record;
  }

  async read(account: string, id: string): Promise<ReadRecord> {
    return await this.deps.store.get(account, id) ?? (() => { throw notFound(); })();
  }

  async approve(account: string, id: string, actor: string, note: string | null): Promise<OverrideRecord> {
    return this.decide(account, id, actor, note, 'approved');
  }

  async reject(account: string, id: string, actor: string, note: string | null): Promise<OverrideRecord> {
    return this.decide(account, id, actor, note, 'rejected');
  }

  async revoke(account: string, id: string, actor: string, note: string | null): Promise<OverrideRecord> {
    return this.close(account, id, 'revoked', actor, note, ['active', 'pending_approval'], true);
  }

  /** Records the expiry of an override past its time (any replica may ask; one change is logged). */
  async expire(account: string, id: string): Promise<OverrideRecord | null> {
    return this.closeQuietly(account, id, 'expired', null, 'expired at expires_at', (record, nowMs) => Date.parse(record.expires_at) <= nowMs);
  }

  /** Records that an override's bound facts changed (seen by a verdict); its review opens again. */
  async invalidate(account: string, id: string, why: string): Promise<OverrideRecord | null> {
    return this.closeQuietly(account, id, 'invalidated', null, why, () => true);
  }

  private async decide(account: string, id: string, actor: string, note: string | null, action: 'approved' | 'rejected'): Promise<OverrideRecord> {
    for (;;) {
      const { record, raw } = await this.read(account, id);
      const nowMs = this.deps.now();
      if (record.status === 'pending_approval' && Date.parse(record.expires_at) <= nowMs) {
        await this.expire(account, id);
        continue;
      }
      // A retry of the approval that already happened completes its projection (the first attempt may have
      // failed after the state change) and answers as it would have.
      if (action === 'approved' && record.status === 'active' && sameActor(record.approved_by, actor)) {
        await this.deps.store.project(record);
        return record;
      }
      if (record.status !== 'pending_approval') throw conflict(record, action === 'approved' ? 'approve' : 'reject');
      if (sameActor(record.requested_by, actor)) {
        throw new AppError('same_actor', `${actor} requested this ${record.kind}; someone else must ${action === 'approved' ? 'approve' : 'reject'} it.`, {
          extensions: { requested_by: record.requested_by },
        });
      }
      const at = isoTimestamp(nowMs);
      const next: OverrideRecord = action === 'approved'
        ? { ...record, status: 'active', approved_by: actor, approved_at: at, updated_at: at }
        : { ...record, status: 'rejected', closed_at: at, closed_by: actor, closed_note: note, updated_at: at };
      const verdict = await this.deps.evaluate(record.mc_number, account);
      const before = await this.summaryWith(account, verdict, null, record);
      const after = action === 'approved' ? await this.summaryWith(account, verdict, next) : before;
      if (!await this.deps.store.transition(raw, next, action, this.entry(nowMs, action, actor, note, next.status, before, after))) continue;
      if (action === 'approved') {
        await this.deps.store.project(next);
        await this.emit(next, action, actor, note, before, after, nowMs);
      }
      return next;
    }
  }

  private async close(account: string, id: string, action: Action & OverrideStatus, actor: string | null, note: string | null,
    from: readonly OverrideStatus[], strict: boolean, due: (record: OverrideRecord, nowMs: number) => boolean = () => true): Promise<OverrideRecord> {
    for (;;) {
      const { record, raw } = await this.read(account, id);
      const nowMs = this.deps.now();
      if (!from.includes(record.status) || !due(record, nowMs)) {
        if (strict) throw conflict(record, action === 'revoked' ? 'revoke' : action);
        return record;
      }
      const at = isoTimestamp(nowMs);
      const next: OverrideRecord = { ...record, status: action, closed_at: at, closed_by: actor, closed_note: note, updated_at: at };
      const verdict = await this.deps.evaluate(record.mc_number, account);
      const wasActive = record.status === 'active';
      const before = await this.summaryWith(account, verdict, null);
      const after = wasActive ? await this.summaryWith(account, verdict, null, record) : before;
      // Out of the replicas' projection first: a failure after this leaves it recorded active but applied nowhere.
      if (wasActive) await this.deps.store.project(next);
      if (!await this.deps.store.transition(raw, next, action, this.entry(nowMs, action, actor, note, next.status, before, after))) {
        if (wasActive) await this.reproject(account, id);
        continue;
      }
      if (wasActive) await this.emit(next, action, actor, note, before, after, nowMs);
      if (action === 'invalidated') await this.reopenReview(account, next, verdict, nowMs);
      return next;
    }
  }

  private async closeQuietly(account: string, id: string, action: 'expired' | 'invalidated', actor: string | null, note: string,
    due: (record: OverrideRecord, nowMs: number) => boolean): Promise<OverrideRecord | null> {
    try {
      return await this.close(account, id, action, actor, note, ['active', 'pending_approval'], false, due);
    } catch (error) {
      if (error instanceof AppError && error.kind === 'not_found') return null;
      throw error;
    }
  }

  private async reproject(account: string, id: string): Promise<void> {
    const current = await this.deps.store.get(account, id);
    if (current !== null) await this.deps.store.project(current.record);
  }

  /**
   * The verdict summary with the account's active overrides for the carrier (with `plus`, without `minus`), as
   * a check without a reference would see it; a reference-scoped `plus` is counted for its own reference.
   */
  private async summaryWith(account: string, verdict: Verdict, plus: OverrideRecord | null, minus: OverrideRecord | null = null): Promise<VerdictSummary | null> {
    const records = (await this.deps.store.list(account))
      .filter((record) => record.status === 'active' && record.mc_number === verdict.mc_number && record.id !== minus?.id && record.id !== plus?.id);
    if (plus !== null) records.push(plus);
    const reference = plus !== null && 'reference' in plus.scope ? plus.scope.reference : null;
    const covered = coverage(verdict, records.map(toActive), reference, this.deps.now());
    return covered.covered ? { eligible: true, tier: 'standard', reasons: [] } : summary(verdict);
  }

  private entry(nowMs: number, action: Action, actor: string | null, note: string | null, status: OverrideStatus,
    before: VerdictSummary | null, after: VerdictSummary | null): HistoryEntry {
    return { at: isoTimestamp(nowMs), action, actor, note, status, verdict_before: before, verdict_after: after };
  }

  private async reopenReview(account: string, record: OverrideRecord, verdict: Verdict, nowMs: number): Promise<void> {
    if (verdict.tier !== 'conditional' || verdict.degraded) return;
    const result = await this.deps.reviews.sight(account, {
      mc: record.mc_number, dot: verdict.carrier?.dot_number ?? null, legalName: verdict.carrier?.legal_name ?? null, reasons: verdict.reasons,
      evidence: verdict.evidence.reasons, decisionId: null, source: 'check', status: 'open', atMs: nowMs, count: 0,
    });
    if (result !== null && result.after === 'open' && result.before !== 'open') await this.emitReviewOpened(account, record.mc_number, verdict, nowMs);
  }

  async emitReviewOpened(account: string, mc: string, verdict: Pick<Verdict, 'eligible' | 'tier' | 'reasons' | 'carrier' | 'decision_id' | 'ruleset_version' | 'data_as_of'>, nowMs: number): Promise<void> {
    const at = isoTimestamp(nowMs);
    const snapshot = { eligible: verdict.eligible, tier: verdict.tier, reasons: verdict.reasons };
    await this.send(account, {
      id: uuidv7(), type: 'review.opened', occurred_at: at, observed_at: at, mc, dot: verdict.carrier?.dot_number ?? null, trigger: null,
      before: null, after: snapshot, reasons_added: [], reasons_removed: [], decision_id: verdict.decision_id || null,
      ruleset_version: verdict.ruleset_version, data_as_of: verdict.data_as_of, review_id: `rv_${mc}`,
    });
  }

  private async emit(record: OverrideRecord, action: Action, actor: string | null, note: string | null,
    before: VerdictSummary | null, after: VerdictSummary | null, nowMs: number): Promise<void> {
    const type = EVENT_OF[action];
    if (type === undefined) return;
    const at = isoTimestamp(nowMs);
    const event: MonitoringEvent = {
      id: uuidv7(), type, occurred_at: at, observed_at: at, mc: record.mc_number, dot: record.dot_number, trigger: null,
      before, after, reasons_added: [], reasons_removed: [], decision_id: null, ruleset_version: null, data_as_of: null,
      override: {
        id: record.id, kind: record.kind, status: record.status, reasons: record.reasons, reason_code: record.reason_code,
        scope: record.scope, expires_at: record.expires_at, actor, note,
      },
    };
    // The verdict.changed of a flip comes from monitoring's detector, for the accounts watching the carrier.
    await this.send(record.account, event);
  }

  private async send(account: string, event: MonitoringEvent): Promise<void> {
    if (this.deps.events === null) return;
    try {
      await this.deps.events.append([{ account, event }]);
    } catch (error) {
      this.deps.log.warn({ err: error, event_type: event.type, mc: event.mc }, 'override event not stored');
    }
  }
}

function conflict(record: OverrideRecord, what: string): AppError {
  return new AppError('override_status_conflict', `This ${record.kind} is ${record.status}; it cannot be asked to ${what}.`, { extensions: { status: record.status } });
}
