// The stored form of a decision record, and the way back to the verdict exactly as it was given.
//
// Compact by design (load boards send thousands of checks a second): a record is a short JSON array of what is
// unique to the decision (who asked, the verdict's own fields), plus a reference to evidence shared by every
// decision on the same (snapshot, MC number, rule set, reasons): the carrier block and per-reason evidence are
// stored once per snapshot under decisionEvidence(), and the source list is rebuilt from the snapshot
// manifest, which is kept indefinitely. evaluated_at is not stored when it is the decision id's own timestamp
// (UUIDv7), which it always is for verdicts this service builds.
import { z } from 'zod';
import { isoTimestamp } from '../core/dates.js';
import type { Decision } from '../core/decide.js';
import type { ReasonEvidence } from '../core/evidence.js';
import { REASON_CODES, type Reason } from '../core/reasons.js';
import { isVerbatimJson, jsonString } from '../log-bytes.js';
import type { Verdict, VerdictOverride } from '../core/verdict.js';

export const RECORD_FORMAT = 1;

/** A decision's identity and context, besides the verdict itself. */
export interface RecordContext {
  kind: 'check' | 'batch_row';
  keyId: string;
  account: string;
  requestId: string | null;
  reference: string | null;
  jobId: string | null;
  row: number | null;
}

/** The evidence shared across decisions: carrier block and per-reason evidence (no source list). */
export interface SharedEvidence {
  carrier: Decision['carrier'];
  reasons: ReasonEvidence[];
  /** The account policy the decision was made under (only then). */
  policy?: NonNullable<Verdict['evidence']['policy']>;
}

/**
 * Position 15: the rule set version, or for a decision made under an account policy `"<rule set>|<policy
 * version>|<policy SHA-256>"` (a record keeps the policy's content hash; records without a policy keep the number).
 */
function rulesetPosition(verdict: Verdict): number | string | null {
  if (verdict.policy_version === null) return verdict.ruleset_version;
  return `${verdict.ruleset_version ?? ''}|${verdict.policy_version}|${verdict.evidence.policy?.sha256 ?? ''}`;
}

function parseRulesetPosition(value: number | string | null): { ruleset: number | null; policy: { version: number; sha256: string } | null } {
  if (typeof value !== 'string') return { ruleset: value, policy: null };
  const [ruleset = '', version = '', sha256 = ''] = value.split('|');
  return { ruleset: ruleset === '' ? null : Number(ruleset), policy: { version: Number(version), sha256 } };
}

const REASON_BIT = new Map(REASON_CODES.map((code, index) => [code, index]));

/** Names the shared-evidence variant of a verdict: rule set version, reasons (as a bit set), live DNU flag. */
export function evidenceVariant(verdict: Verdict): string {
  // Memoised per evidence object (a cache-hot verdict reuses its template's), guarded by the inputs it reads.
  const memo = variants.get(verdict.evidence);
  if (memo !== undefined && memo.reasons === verdict.reasons && memo.rulesetVersion === verdict.ruleset_version) return memo.variant;
  let mask = 0;
  // A verdict lifted by overrides has no reasons, but its evidence is the conditional verdict's: the same variant.
  const reasons = verdict.overrides === undefined ? verdict.reasons : [...new Set(verdict.evidence.reasons.map((item) => item.reason))];
  for (const reason of reasons) mask += 2 ** (REASON_BIT.get(reason) ?? 0);
  const live = verdict.evidence.reasons.some((item) => item.source === 'dnu_live');
  // Evidence under an account policy differs (escalation rules, waived reasons): its own variant per policy content.
  const policy = verdict.evidence.policy ? `.p${verdict.evidence.policy.sha256.slice(0, 16)}` : '';
  const variant = `${verdict.ruleset_version ?? 'x'}.${mask.toString(36)}${live ? '.d' : ''}${policy}`;
  // Only a cache-hot verdict's evidence object is reused; memoising a fresh one would only churn the WeakMap.
  if (verdict.cache_hit && verdict.overrides === undefined) variants.set(verdict.evidence, { reasons: verdict.reasons, rulesetVersion: verdict.ruleset_version, variant });
  return variant;
}
const variants = new WeakMap<Verdict['evidence'], { reasons: Verdict['reasons']; rulesetVersion: number | null; variant: string }>();

/** Whether a verdict's evidence is carrier-specific (shared per snapshot) or small enough to keep inline. */
export function hasSharedEvidence(verdict: Verdict): boolean {
  return verdict.carrier !== null && verdict.evidence.snapshot_version !== null;
}

/** Milliseconds of a UUIDv7's timestamp; NaN for anything else. */
export function idMillis(id: string): number {
  // Ids of one millisecond share their first 13 characters, and many share one under load: parse once per ms.
  if (id.length >= 13 && id.startsWith(lastIdPrefix)) return lastIdMillis;
  const ms = parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
  if (id.length >= 13 && id.charCodeAt(8) === 0x2d && Number.isFinite(ms) && /^[0-9a-f]{8}-[0-9a-f]{4}$/.test(id.slice(0, 13))) {
    lastIdPrefix = id.slice(0, 13);
    lastIdMillis = ms;
  }
  return ms;
}
let lastIdPrefix = '\u0000';
let lastIdMillis = Number.NaN;

export const DECISION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The ISO time of a decision id's millisecond ('' for an id without one); its verdict's evaluated_at, mostly. */
function isoOfId(id: string): string {
  const ms = idMillis(id);
  return Number.isFinite(ms) ? isoTimestamp(ms) : '';
}

// Positional layout of the stored array (append new positions at the end only).
//  0 format  1 kind(c|b)  2 key id  3 account  4 request id  5 reference  6 job id  7 row
//  8 snapshot version  9 evidence: variant string (shared) or inline reasons array
// 10 eligible(0|1) 11 found(0|1) 12 tier 13 reasons (comma list) 14 degraded(0|1) 15 ruleset version
// 16 data_as_of 17 evaluated_at (0 when it equals the id's timestamp) 18 cache_hit(0|1) 19 MC number
// 20 the overrides that lifted the verdict (absent when none)
export function encodeRecord(verdict: Verdict, context: RecordContext): string {
  // Only verdicts that reuse a template's decision objects (src/eligibility/service.ts) take the cached tail: a
  // cache-hot one, or a not-found one (one template per snapshot for every unknown MC number); memoising the
  // fresh evidence of any other would only churn the WeakMap.
  const shared = verdict.cache_hit || (!verdict.found && !verdict.degraded && verdict.carrier === null);
  if (!shared || verdict.overrides !== undefined || isoOfId(verdict.decision_id) !== verdict.evaluated_at) return encodeRecordGeneral(verdict, context);
  // Positions 8–18 are the same for every record of a template: JSON-encoded once per evidence object and put
  // between the context's own positions and the MC number. The cached tail is used only when every field it
  // encodes is the verdict's own (identity for the arrays). test/unit/evidence.test.ts compares it with
  // encodeRecordGeneral. 696 → 366 ns per record in bench/micro (with the per-key head below).
  let tail = tails.get(verdict.evidence);
  if (tail === undefined || tail.reasons !== verdict.reasons || tail.carrier !== verdict.carrier || tail.eligible !== verdict.eligible
    || tail.found !== verdict.found || tail.tier !== verdict.tier || tail.degraded !== verdict.degraded
    || tail.ruleset_version !== verdict.ruleset_version || tail.policy_version !== verdict.policy_version || tail.data_as_of !== verdict.data_as_of) {
    const json = JSON.stringify(verdictPositions(verdict, 0));
    // Cut before the last two positions (cache_hit, 0 or 1, and the MC number): a JSON string never holds an
    // unescaped quote, so the last `,"` opens the MC number, and cache_hit is the one digit before it.
    const mcAt = json.lastIndexOf(',"');
    tail = {
      reasons: verdict.reasons, carrier: verdict.carrier, eligible: verdict.eligible, found: verdict.found, tier: verdict.tier,
      degraded: verdict.degraded, ruleset_version: verdict.ruleset_version, policy_version: verdict.policy_version, data_as_of: verdict.data_as_of,
      json: `,${json.slice(1, mcAt - 1)}`, closing: '', afterRequestId: '',
    };
    tails.set(verdict.evidence, tail);
  }
  const closing = lastPositions(verdict.cache_hit, verdict.mc_number);
  const { requestId } = context;
  if (requestId !== null && context.reference === null && context.jobId === null && context.row === null && isVerbatimJson(requestId)) {
    // A check without a reference (nearly every one): everything after the request id is one string per (tail,
    // closing), so a record is three concatenations instead of eleven (and a shallower rope for ioredis to flatten).
    if (tail.closing !== closing) {
      tail.closing = closing;
      tail.afterRequestId = `",null,null,null${tail.json}${closing}`;
    }
    return `${contextPrefix(context)}"${requestId}${tail.afterRequestId}`;
  }
  return `${contextHead(context)}${tail.json}${closing}`;
}

// The record's closing positions, cache_hit and the MC number, for the last pair: consecutive records mostly
// share it (cache-hot).
let lastHit = false;
let lastMc = '';
let lastClosing = '0,""]';
function lastPositions(cacheHit: boolean, mc: string): string {
  if (mc !== lastMc || cacheHit !== lastHit) {
    lastClosing = `${cacheHit ? 1 : 0},${jsonString(mc)}]`;
    lastMc = mc;
    lastHit = cacheHit;
  }
  return lastClosing;
}

// Positions 0–3 are the same for every record of a key: '[1,"c","<key id>","<account>",' built once per key
// and kind, found by the key id (the same string object on every request: its hash is computed once).
const heads = new Map<string, { account: string; check: string; batch: string }>();
function contextPrefix(context: RecordContext): string {
  let head = heads.get(context.keyId);
  if (head === undefined || head.account !== context.account) {
    if (heads.size >= 10_000) heads.clear();
    const prefix = (kind: string) => `${JSON.stringify([RECORD_FORMAT, kind, context.keyId, context.account]).slice(0, -1)},`;
    head = { account: context.account, check: prefix('c'), batch: prefix('b') };
    heads.set(context.keyId, head);
  }
  return context.kind === 'check' ? head.check : head.batch;
}

/** Positions 0–7 with the comma after them. */
function contextHead(context: RecordContext): string {
  return contextPrefix(context) + jsonOrNull(context.requestId) + ',' + jsonOrNull(context.reference)
    + ',' + jsonOrNull(context.jobId) + ',' + (context.row === null ? 'null' : JSON.stringify(context.row));
}

// Request ids and references through jsonString (src/log-bytes.ts): quoted in place when nothing needs escaping.
const jsonOrNull = (value: string | null): string => (value === null ? 'null' : jsonString(value));

/** A record's positions 8–17 as JSON (with a leading comma and a trailing one), per evidence. */
interface RecordTail extends Pick<Verdict, 'reasons' | 'carrier' | 'eligible' | 'found' | 'tier' | 'degraded' | 'ruleset_version' | 'policy_version' | 'data_as_of'> {
  json: string;
  /** The last closing positions (lastPositions) used with this tail, and `",null,null,null` + json + it. */
  closing: string;
  afterRequestId: string;
}
const tails = new WeakMap<Verdict['evidence'], RecordTail>();

/** Positions 8–19; cache_hit and the MC number must stay last (encodeRecord cuts before them). */
function verdictPositions(verdict: Verdict, evaluatedAt: 0 | string): unknown[] {
  const shared = hasSharedEvidence(verdict);
  return [verdict.evidence.snapshot_version, shared ? evidenceVariant(verdict) : verdict.evidence.reasons,
    verdict.eligible ? 1 : 0, verdict.found ? 1 : 0, verdict.tier, verdict.reasons.join(','), verdict.degraded ? 1 : 0,
    rulesetPosition(verdict), verdict.data_as_of, evaluatedAt, verdict.cache_hit ? 1 : 0, verdict.mc_number];
}

/** The record as one JSON array of every position: what encodeRecord gives, built field by field. */
export function encodeRecordGeneral(verdict: Verdict, context: RecordContext): string {
  const shared = hasSharedEvidence(verdict);
  const evaluatedAt = isoOfId(verdict.decision_id) === verdict.evaluated_at ? 0 : verdict.evaluated_at;
  return JSON.stringify([
    RECORD_FORMAT, context.kind === 'check' ? 'c' : 'b', context.keyId, context.account, context.requestId, context.reference,
    context.jobId, context.row, verdict.evidence.snapshot_version, shared ? evidenceVariant(verdict) : verdict.evidence.reasons,
    verdict.eligible ? 1 : 0, verdict.found ? 1 : 0, verdict.tier, verdict.reasons.join(','), verdict.degraded ? 1 : 0,
    rulesetPosition(verdict), verdict.data_as_of, evaluatedAt, verdict.cache_hit ? 1 : 0, verdict.mc_number,
    ...(verdict.overrides === undefined ? [] : [verdict.overrides]),
  ]);
}

export function encodeSharedEvidence(verdict: Verdict): string {
  const shared: SharedEvidence = { carrier: verdict.carrier, reasons: verdict.evidence.reasons };
  if (verdict.evidence.policy) shared.policy = verdict.evidence.policy;
  return JSON.stringify(shared);
}

const fact = z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(z.string())]);
const reasonEvidenceSchema = z.object({
  reason: z.string(), source: z.string(), record_id: z.string().nullable(), facts: z.record(z.string(), fact),
  rule: z.record(z.string(), fact).nullable(),
});
const bit = z.union([z.literal(0), z.literal(1)]);

const storedRecord = z.tuple([
  z.literal(RECORD_FORMAT), z.enum(['c', 'b']), z.string(), z.string(), z.string().nullable(), z.string().nullable(),
  z.string().nullable(), z.number().nullable(), z.string().nullable(), z.union([z.string(), z.array(reasonEvidenceSchema)]),
  bit, bit, z.enum(['preferred', 'standard', 'conditional', 'blocked']).nullable(), z.string(), bit, z.union([z.number(), z.string()]).nullable(),
  z.string().nullable(), z.union([z.literal(0), z.string()]), bit, z.string(),
]).rest(z.unknown());

export const sharedEvidenceSchema = z.object({
  carrier: z.object({ dot_number: z.string().nullable(), legal_name: z.string(), dba_name: z.string().nullable() }).nullable(),
  reasons: z.array(reasonEvidenceSchema),
  policy: z.object({ version: z.number(), sha256: z.string(), waived: z.array(z.enum(REASON_CODES)) }).optional(),
});

/** A stored record, decoded but not yet joined with its shared evidence and manifest. */
export interface StoredRecord {
  decisionId: string;
  context: RecordContext;
  snapshotVersion: string | null;
  /** Variant name of the shared evidence, or the evidence reasons kept inline. */
  evidence: string | ReasonEvidence[];
  verdict: Omit<Verdict, 'carrier' | 'evidence'>;
  /** The account policy the decision was made under, from position 15 (null: none). */
  policy: { version: number; sha256: string } | null;
}

/** Throws on anything that is not a record this code wrote (the reader answers that as an internal error). */
export function decodeRecord(decisionId: string, raw: string): StoredRecord {
  const r = storedRecord.parse(JSON.parse(raw));
  const { ruleset, policy } = parseRulesetPosition(r[15]);
  return {
    decisionId,
    context: { kind: r[1] === 'c' ? 'check' : 'batch_row', keyId: r[2], account: r[3], requestId: r[4], reference: r[5], jobId: r[6], row: r[7] },
    snapshotVersion: r[8],
    evidence: r[9] as string | ReasonEvidence[],
    verdict: {
      eligible: r[10] === 1, found: r[11] === 1, tier: r[12], reasons: (r[13] === '' ? [] : r[13].split(',')) as Reason[],
      degraded: r[14] === 1, decision_id: decisionId, ruleset_version: ruleset, policy_version: policy?.version ?? null, data_as_of: r[16],
      evaluated_at: r[17] === 0 ? new Date(idMillis(decisionId)).toISOString() : r[17], cache_hit: r[18] === 1, mc_number: r[19],
      ...(Array.isArray(r[20]) ? { overrides: r[20] as VerdictOverride[] } : {}),
    },
    policy,
  };
}
