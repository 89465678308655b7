// Evidence behind a verdict: for each reason, the source and the record it rests on (and the rule threshold it
// was held against), plus every source the verdict was screened against with its as-of and file SHA-256.
// Pure, like decide(): everything comes from the carrier record, the rule set and the snapshot meta, so a
// decision record can be re-derived and checked years later from the kept rule set and snapshot manifest.
import type { CarrierLookup, CarrierRecord, SnapshotMeta, SourceFreshness, WatchlistHit } from './carrier.js';
import { bipdInForce, CITATIONS, federalMinimumBipd } from './federal-rules.js';
import { identityEvidence } from './identity-signals.js';
import { requiredBipd } from './insurance.js';
import type { Reason } from './reasons.js';
import { watchlistReason } from './watchlist-reasons.js';
import type { AccountPolicyRules, RuleSet, SourceName } from './ruleset.js';

/** Where a reason's evidence comes from: a source file of the snapshot, or the service itself. */
export type EvidenceSource = SourceName | 'dnu_live' | 'snapshot' | 'ruleset' | 'service';

export type Fact = string | number | boolean | null | readonly string[];

export interface ReasonEvidence {
  reason: Reason;
  source: EvidenceSource;
  /** The source's own id of the record (OFAC ent_num, SAM number, USDOT number, MC docket), when it has one. */
  record_id: string | null;
  /** The values of that record the reason rests on, as the snapshot holds them. */
  facts: Record<string, Fact>;
  /** The rule set thresholds the facts were held against (null when the reason needs none). */
  rule: Record<string, Fact> | null;
}

export interface SourceFile {
  name: string;
  sha256: string | null;
  bytes: number | null;
  rows: number | null;
}

export interface SourceEvidence {
  source: SourceName;
  present: boolean;
  /** Content as-of of the file (RFC 3339), and where that date came from (file name, header, --as-of). */
  as_of: string | null;
  as_of_from: string | null;
  ingested_at: string | null;
  rows: number;
  files: SourceFile[];
}

export interface Evidence {
  snapshot_version: string | null;
  reasons: ReasonEvidence[];
  sources: SourceEvidence[];
  /** Only when an account policy decided: its version and content hash, and the reasons it waived. */
  policy?: { version: number; sha256: string; waived: Reason[] };
}

export interface EvidenceInput {
  reasons: readonly Reason[];
  lookup: CarrierLookup | null;
  rules: RuleSet | null;
  snapshot: SnapshotMeta | null;
  /** The MC number was on the live do-not-use list (not only in the snapshot). */
  onDoNotUseList: boolean;
  maxDataAgeSeconds: number;
  /** The account policy the decision was made under, and the reasons it waived (absent: none). */
  policy?: AccountPolicyRules | null;
  waived?: readonly Reason[] | null;
  /** The verdict's clock reading: what insurance is in force depends on it (a cancellation may have taken effect). */
  nowMs: number;
}

// Keys of WatchlistHit that are not facts of the listed entry itself.
const HIT_META = new Set(['list', 'entry_id']);

function hitFacts(hit: WatchlistHit): Record<string, Fact> {
  const facts: Record<string, Fact> = {};
  // Copy every field the matcher supplied (program, entity type, explanation, ... as they are added), so the
  // evidence grows with the matcher without this module naming each field.
  for (const [name, value] of Object.entries(hit)) {
    if (HIT_META.has(name) || value === undefined) continue;
    if (value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') facts[name] = value;
    else if (Array.isArray(value) && value.every((item) => typeof item === 'string')) facts[name] = value as string[];
    else facts[name] = JSON.stringify(value);
  }
  return facts;
}

// The hits behind a watch-list reason are exactly those the matcher's rule (watchlistReason, the same function
// decide() uses) maps to that reason; each item carries the facts (exact, score, list, programs, entity type,
// confirmation, ...) that rule looked at.
function hitsFor(record: CarrierRecord, reason: Reason, rules: RuleSet): WatchlistHit[] {
  return record.hits.filter((hit) => watchlistReason(hit, rules) === reason);
}

const item = (reason: Reason, source: EvidenceSource, recordId: string | null, facts: Record<string, Fact>, rule: Record<string, Fact> | null = null): ReasonEvidence => ({
  reason, source, record_id: recordId, facts, rule,
});

/** Evidence items for one reason of a found carrier (a watch-list reason yields one item per matching entry). */
function carrierEvidence(reason: Reason, record: CarrierRecord, rules: RuleSet, onDoNotUseList: boolean, nowMs: number): ReasonEvidence[] {
  const docket = `MC-${record.mc}`;
  const hits = reason === 'do_not_use' ? [] : hitsFor(record, reason, rules);
  if (hits.length > 0) {
    // Any OFAC / SAM reason (including ones the matcher adds later): one item per list entry behind it.
    const rule: Record<string, Fact> = {
      review_threshold: rules.name_match.review_threshold, hard_stop_threshold: rules.name_match.hard_stop_threshold ?? 0.95,
    };
    return hits.map((hit) => item(reason, hit.list, hit.entry_id, hitFacts(hit), rule));
  }
  switch (reason) {
    case 'do_not_use': {
      const items = hitsFor(record, reason, rules).map((hit) => item(reason, 'dnu', hit.entry_id, hitFacts(hit)));
      if (onDoNotUseList) items.push(item(reason, 'dnu_live', docket, { listed: true }));
      return items;
    }
    case 'out_of_service_order':
      return [item(reason, 'oos', record.dot, { order_date: record.oos_order?.since ?? null, order_reason: record.oos_order?.reason ?? null })];
    case 'usdot_inactive':
      return [item(reason, 'census', record.dot, { usdot_status: record.usdot_status }, { required_status: 'A' })];
    case 'carrier_record_unreadable': {
      const first = record.unreadable?.[0]?.split('.')[0] as SourceName | undefined;
      return [item(reason, first ?? 'census', record.dot, { unreadable_fields: record.unreadable ?? [] })];
    }
    case 'authority_not_active':
      return [item(reason, 'authority', docket, {
        authority_status: record.authority.status, granted_on: record.authority.granted_on,
        ...(record.authority.scope ? { authority_scope: record.authority.scope } : {}),
      })];
    case 'authority_records_disagree':
      return [item(reason, 'census', record.dot, {
        census_docket_status: record.census?.docket_status ?? null, carrier_file_authority_status: record.authority.status,
      })];
    case 'prior_revocation_link':
      return [item(reason, 'census', record.dot, { prior_revoke_dot: record.census?.prior_revoke_dot ?? null, dot_number: record.dot })];
    case 'intrastate_only_census':
      return [item(reason, 'census', record.dot, {
        carrier_operation: record.census?.carrier_operation ?? null, authority_status: record.authority.status,
      })];
    case 'insurance_lapsed':
    case 'insurance_below_federal_minimum':
      return [item(reason, 'insurance', docket, insuranceFacts(record, nowMs), {
        federal_min_bipd_usd: federalMinimumBipd(record, rules),
        federal_min_bipd_hazmat_usd: rules.insurance.federal_min_bipd_hazmat_usd ?? null,
      })];
    case 'authority_revoked':
    case 'authority_revocation_pending':
      return [item(reason, 'revocations', docket, {
        revoked_effective_on: record.authority.revoked_on,
        pending_effective_on: record.authority.revocation_pending_on || null,
        ...servedOn(record),
      })];
    case 'new_authority':
      return [item(reason, 'authority', docket, { granted_on: record.authority.granted_on }, {
        new_authority_min_days: rules.authority.new_authority_min_days,
      })];
    case 'unsatisfactory_safety_rating':
    case 'conditional_safety_rating':
      return [item(reason, 'census', record.dot, { safety_rating: record.safety_rating, ...ratingDate(record) },
        reason === 'conditional_safety_rating' ? { conditional: rules.safety.conditional } : null)];
    case 'insurance_not_on_file':
    case 'insurance_below_minimum':
      return [item(reason, 'insurance', docket, {
        bipd_on_file_usd: record.insurance.bipd_on_file_usd,
        bipd_required_by_fmcsa_usd: record.insurance.bipd_required_usd,
        hazmat: record.hazmat,
      }, {
        min_bipd_usd: record.hazmat ? rules.insurance.min_bipd_hazmat_usd : rules.insurance.min_bipd_general_usd,
        required_bipd_usd: requiredBipd(record, rules),
      })];
    case 'insurance_cancellation_pending':
      return [item(reason, 'insurance_history', docket, {
        cancellation_effective_on: record.insurance.cancellation_effective_on,
        bipd_on_file_usd: record.insurance.bipd_on_file_usd,
      }, { cancellation_warning_days: rules.insurance.cancellation_warning_days })];
    case 'mcs150_outdated':
      return [item(reason, 'census', record.dot, { mcs150_date: record.mcs150_date }, { max_age_months: rules.mcs150.max_age_months })];
    case 'recent_contact_change':
    case 'recent_address_change':
    case 'recent_name_change':
    case 'shared_contact':
    case 'authority_reactivated': {
      const found = identityEvidence(reason, record, rules, nowMs);
      const source: EvidenceSource = reason === 'authority_reactivated' && record.identity?.reactivated?.after === 'revocation' ? 'authority_history' : 'census';
      return found === null ? [] : [item(reason, source, record.dot, found.facts, found.rule)];
    }
    default:
      return [];
  }
}

// What the insurance rules looked at: the tower in force now, and why it is what it is.
function insuranceFacts(record: CarrierRecord, nowMs: number): Record<string, Fact> {
  const { insurance } = record;
  return {
    bipd_in_force_usd: bipdInForce(record, nowMs), bipd_on_file_usd: insurance.bipd_on_file_usd,
    bipd_required_by_fmcsa_usd: insurance.bipd_required_usd, hazmat: record.hazmat,
    cancellation_effective_on: insurance.cancellation_effective_on,
    bipd_after_cancellation_usd: insurance.bipd_after_cancellation_usd ?? null,
    lapsed_on: insurance.lapsed_on ?? null, excess_not_counted_usd: insurance.excess_not_counted_usd ?? null,
  };
}

// Dates the data layer may add to the record (older snapshots lack them): read only when present.
function servedOn(record: CarrierRecord): Record<string, Fact> {
  const served = (record.authority as { revocation_served_on?: unknown }).revocation_served_on;
  return typeof served === 'string' ? { served_on: served } : {};
}

function ratingDate(record: CarrierRecord): Record<string, Fact> {
  const date = (record as { safety_rating_date?: unknown }).safety_rating_date;
  return typeof date === 'string' ? { rating_date: date } : {};
}

/** Evidence for a reason that is not about a found carrier's record. */
function otherEvidence(reason: Reason, input: EvidenceInput): ReasonEvidence[] {
  const { snapshot, lookup } = input;
  switch (reason) {
    case 'do_not_use':
      return [item(reason, 'dnu_live', null, { listed: true })];
    case 'ambiguous_mc_number':
      return [item(reason, 'census', null, { dot_numbers: lookup?.kind === 'ambiguous' ? lookup.dot_numbers : [] })];
    case 'carrier_not_found':
      return [item(reason, 'snapshot', snapshot?.version ?? null, { carrier_count: snapshot?.carrier_count ?? null, data_as_of: snapshot?.data_as_of ?? null })];
    case 'data_stale':
      return [item(reason, 'snapshot', snapshot?.version ?? null, { data_as_of: snapshot?.data_as_of ?? null }, {
        max_data_age_seconds: input.maxDataAgeSeconds,
        required_sources: input.rules?.sources.required ?? [],
      })];
    case 'ruleset_unavailable':
      return [item(reason, 'ruleset', null, {})];
    case 'backend_unavailable':
      return [item(reason, 'service', null, {})];
    default:
      return [];
  }
}

/** The regulation a reason rests on, named in its rule (docs/verdict-rules.md). */
function cited(evidence: ReasonEvidence): ReasonEvidence {
  const regulation = (CITATIONS as Partial<Record<Reason, string>>)[evidence.reason];
  return regulation === undefined ? evidence : { ...evidence, rule: { ...evidence.rule, regulation } };
}

/** One item per reason (watch-list reasons: per matching entry), in the verdict's reason order. */
export function reasonEvidence(input: EvidenceInput): ReasonEvidence[] {
  const record = input.lookup?.kind === 'found' ? input.lookup.record : null;
  const out: ReasonEvidence[] = [];
  for (const reason of input.reasons) {
    const items = record && input.rules ? carrierEvidence(reason, record, input.rules, input.onDoNotUseList, input.nowMs) : [];
    const other = items.length > 0 ? items : otherEvidence(reason, input);
    // A reason this module has no rule for yet still gets an item naming it and the record it was raised on.
    out.push(...(other.length > 0 ? other : [item(reason, 'snapshot', record ? `MC-${record.mc}` : null, {})]).map(cited));
  }
  return out;
}

function fileList(freshness: SourceFreshness): SourceFile[] {
  const files = (freshness as { files?: unknown }).files;
  if (Array.isArray(files)) {
    return files.map((file: { name?: unknown; sha256?: unknown; bytes?: unknown; rows?: unknown }) => ({
      name: typeof file.name === 'string' ? file.name : '',
      sha256: typeof file.sha256 === 'string' ? file.sha256 : null,
      bytes: typeof file.bytes === 'number' ? file.bytes : null,
      rows: typeof file.rows === 'number' ? file.rows : null,
    }));
  }
  return freshness.file ? [{ name: freshness.file, sha256: null, bytes: null, rows: freshness.rows }] : [];
}

const optionalString = (value: unknown): string | null => (typeof value === 'string' ? value : null);

// A snapshot's source list is the same for every verdict served from it: built once per meta object.
const sourcesByMeta = new WeakMap<SnapshotMeta, SourceEvidence[]>();

/** Every source of the snapshot, present or not, in a stable order: what the verdict was screened against. */
export function sourceEvidence(snapshot: SnapshotMeta | null): SourceEvidence[] {
  if (!snapshot) return [];
  const cached = sourcesByMeta.get(snapshot);
  if (cached) return cached;
  const out: SourceEvidence[] = [];
  for (const name of Object.keys(snapshot.sources).sort() as SourceName[]) {
    const freshness = snapshot.sources[name];
    if (!freshness) continue;
    const extra = freshness as { as_of_from?: unknown; ingested_at?: unknown };
    out.push({
      source: name, present: freshness.present, as_of: freshness.as_of, as_of_from: optionalString(extra.as_of_from),
      ingested_at: optionalString(extra.ingested_at), rows: freshness.rows, files: fileList(freshness),
    });
  }
  sourcesByMeta.set(snapshot, out);
  return out;
}

export function buildEvidence(input: EvidenceInput): Evidence {
  const evidence: Evidence = { snapshot_version: input.snapshot?.version ?? null, reasons: reasonEvidence(input), sources: sourceEvidence(input.snapshot) };
  const { policy } = input;
  if (policy) {
    // A reason the policy escalated names the policy rule beside the rule set's thresholds.
    for (const item of evidence.reasons) {
      if (!policy.block.has(item.reason)) continue;
      item.rule = { ...(item.rule ?? {}), policy_version: policy.version, policy_rule: policy.ruleOf[item.reason] ?? `outcomes.${item.reason}`, policy_outcome: 'block' };
    }
    evidence.policy = { version: policy.version, sha256: policy.sha256, waived: [...(input.waived ?? [])] };
  }
  return evidence;
}
