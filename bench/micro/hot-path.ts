// Micro-benchmarks of the pure pieces of a cache-hot eligibility check (issue 10): decide(), verdict
// serialisation, body parsing, decision ids, RateLimit headers, the access line, metrics. `npm run bench:micro`; numbers in bench/README.md.
// Each row calls the real module function where one exists; rows marked "reference" time the alternative a
// change replaced, so the saving stays visible in review.
import { randomUUID } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import { assess, type CarrierFacts, type Decider } from '../../src/core/assess.js';
import { decide, decideWithoutEvidence, type DecisionInput } from '../../src/core/decide.js';
import { normaliseMcNumber } from '../../src/core/mc-number.js';
import { DEFAULT_RULE_SET, SOURCE_NAMES } from '../../src/core/ruleset.js';
import { verdictHeadBlock } from '../../src/eligibility/route.js';
import { parseCanonicalBody, parseEligibilityBodyGeneral } from '../../src/eligibility/body.js';
import { logRequest, createLogger, type Destination, type LinePart } from '../../src/log.js';
import { Metrics } from '../../src/metrics.js';
import { rateLimitHeaders, type BudgetDecision } from '../../src/ratelimit/budget.js';
import type { LiveState } from '../../src/state/live-state.js';
import { encodeRecord, encodeRecordGeneral } from '../../src/decisions/record-codec.js';
import { decisionId } from '../../src/decisions/decision-id.js';
import {
  serialiseVerdict, VerdictBytes, verdictBytes, VerdictTemplates,
} from '../../src/eligibility/verdict-bytes.js';
import { toVerdict } from '../../src/decisions/decision-id.js';
import { decodeCarrier, encodeCarrier, NOT_FOUND } from '../../src/store/carrier-codec.js';
import { cleanCarrier } from '../../test/helpers/harness.js';
import { Command } from 'ioredis';
import { compilePolicy } from '../../src/policy/apply.js';
import { OverrideEffect } from '../../src/overrides/effect.js';
import { toActive, type OverrideRecord } from '../../src/overrides/model.js';
import { OverrideRegistry } from '../../src/overrides/registry.js';
import { measure, report, type MicroResult } from './harness.js';

const nowMs = Date.now();
const iso = new Date(nowMs).toISOString();
const snapshot = {
  version: 'vbench', data_as_of: iso, created_at: iso, carrier_count: 1,
  sources: Object.fromEntries(SOURCE_NAMES.map((source) => [source, { present: true, as_of: iso, rows: 1 }])),
};
const ruleset = { version: 1, published_at: iso, rules: DEFAULT_RULE_SET };
const input = (record = cleanCarrier('123456')): DecisionInput => ({
  lookup: { kind: 'found', record }, ruleset, snapshot, backendAvailable: true, maxDataAgeSeconds: 172_800, nowMs, onDoNotUseList: false,
});
const clean = input();
const blocked = input(cleanCarrier('123457', { safety_rating: 'U', oos_order: { since: '2024-01-01', reason: 'unsat' } }));
const notFound: DecisionInput = { ...clean, lookup: { kind: 'not_found' } };

const decision = decide(clean);
if (decision.degraded || !decision.eligible) throw new Error(`the clean carrier should be eligible: ${JSON.stringify(decision.reasons)}`);
const verdict = toVerdict(decision, '123456', nowMs, true);
const templates = new VerdictTemplates();
const lookup = clean.lookup!;
const templated = toVerdict(templates.settle(decide(clean), lookup, snapshot, ruleset, false, '123456'), '123456', nowMs, true);
// A template's first verdict is written from its text (VerdictBytes.encoded); the cache-hot check's are from its bytes.
verdictBytes(templated)?.writeTo(Buffer.alloc(64 * 1024));
const templatedBytes = verdictBytes(templated)!;
if (!(templatedBytes instanceof VerdictBytes) || templatedBytes.ownBytes() === null) throw new Error('the templated verdict should have its template\'s bytes');
const sendBuffer = Buffer.alloc(64 * 1024);
// A carrier at its first cache hit, every time: a new lookup object, so a new verdict template per call (the service
// makes a carrier's template at its first hit; a miss is answered from decide() and the split serialisation).
const missedRecord = cleanCarrier('123456');
const untemplated = toVerdict(decide(notFound), '123456', nowMs, false);
// Unknown MC numbers (most of the cache-cold scenario): one shared lookup and template for all of them.
const unknownInput: DecisionInput = { ...clean, lookup: NOT_FOUND };
const unknownMcs = Array.from({ length: 64 }, (_, index) => String(700_000 + index));
let unknownIndex = 0;
const nextUnknown = () => unknownMcs[(unknownIndex = (unknownIndex + 1) & 63)] as string;
// The cache-hot decision step as the service runs it: assess() with the verdict templates as its decider.
const noneListed = { has: (_mc: string, _nowMs: number) => false };
const hotFacts: CarrierFacts = {
  mc: '123456', lookup, snapshot, ruleset, doNotUse: noneListed, backendAvailable: true, maxDataAgeSeconds: 172_800, nowMs,
};
const hotAsker = { account: 'acct', reference: null };
const settle: Decider = (decisionInput, mc) => templates.settleInput(decisionInput, mc);
const unknownVerdict = () => {
  const mc = nextUnknown();
  return toVerdict(templates.settleInput(unknownInput, mc), mc, nowMs, false);
};
const unknownFresh = () => {
  const mc = nextUnknown();
  return toVerdict(decide(unknownInput), mc, nowMs, false);
};
// An account with a published policy (stricter insurance and authority age, still met by the clean carrier): the
// cache-hot step decides with the policy's compiled rule set instead of the global one.
const policyRuleset = compilePolicy({
  account: 'acct', version: 1, sha256: 'x', published_at: iso, published_by: null,
  policy: { insurance: { min_bipd_usd: 900_000 }, authority: { min_age_days: 180 } },
}, ruleset).ruleset;
const policyFacts: CarrierFacts = { ...hotFacts, ruleset: policyRuleset };
if (assess(policyFacts, hotAsker, settle).tier !== assess(hotFacts, hotAsker, settle).tier) throw new Error('the policy should not change the clean carrier\'s tier');
// A conditional verdict (MCS-150 overdue) and the overrides step every recorded check runs for that tier: an
// account with none, with one covering it, and with 1,000 (one per carrier; the registry is keyed by account and MC).
const reviewInput = input(cleanCarrier('900000', { mcs150_date: '2019-01-01' }));
const reviewVerdict = toVerdict(templates.settleInput(reviewInput, '900000'), '900000', nowMs, true);
if (reviewVerdict.tier !== 'conditional') throw new Error(`the MCS-150 carrier should be conditional: ${JSON.stringify(reviewVerdict.reasons)}`);
const overrideOn = (account: string, mc: string): OverrideRecord => ({
  id: `ov_${account}_${mc}`, account, kind: 'override', status: 'active', mc_number: mc, dot_number: null, legal_name: null,
  reasons: ['mcs150_outdated'], scope: { until: '2099-01-01T00:00:00Z' }, reason_code: 'verified_with_carrier', note: null,
  requested_by: 'Ann Lee', requested_at: iso, approved_by: 'Bob Ray', approved_at: iso, expires_at: '2099-01-01T00:00:00Z',
  names_fingerprint: null, bindings: [], decision_id: null, closed_at: null, closed_by: null, closed_note: null, updated_at: iso,
});
const registry = new OverrideRegistry();
registry.replace([toActive(overrideOn('one', '900000')), ...Array.from({ length: 1000 }, (_, index) => toActive(overrideOn('many', String(900_000 + index))))]);
const effect = new OverrideEffect(registry, { note: () => undefined }, { report: () => undefined }, () => nowMs);
if (!effect.apply(reviewVerdict, 'one', null, 'check').eligible || !effect.apply(reviewVerdict, 'many', null, 'check').eligible) {
  throw new Error('the override should lift the conditional verdict');
}
const recordContext = { kind: 'check' as const, keyId: 'abcdefabcdef', account: 'acme', requestId: 'rAbCdEfGh.1a2b', reference: null, jobId: null, row: null };
// A found carrier as a snapshot hash stores it (dates as base-36 day numbers).
const storedCarrier = encodeCarrier(cleanCarrier('123456'));
const canonicalBody = Buffer.from('{"mc_number":"123456"}');
const budget: BudgetDecision = { allowed: true, limit: 1000, remaining: 999, retryAfterSeconds: 1, resetSeconds: 60, fromFallback: false };

// Logging into a sink that keeps nothing: the cost of building and handing over the line, not of write(2).
const sink: Destination = { write: () => true, flush: (done) => done?.(), flushSync: () => undefined };
const log = createLogger('info', 'api', sink);
const line = { request_id: 'r1', method: 'POST', path: '/v1/eligibility', status: 200, duration_ms: 0.31, aborted: false };
const extra = {
  key_id: 'abcdefabcdef', decision_id: verdict.decision_id, mc_number: '123456', eligible: true, tier: 'preferred', reasons: [],
  ruleset_version: 1, data_as_of: iso, cache_hit: true, recorded: true,
};
/**
 * The same members as `extra`, as the eligibility route hands them over (HttpResponse.logParts): bytes encoded
 * once around the one member that changes per request, the decision id.
 */
const extraJson = Object.entries(extra).map(([name, value]) => `,${JSON.stringify(name)}:${JSON.stringify(value)}`).join('');
const [beforeId = '', afterId = ''] = extraJson.split(verdict.decision_id);
const logParts: LinePart[] = [Buffer.from(beforeId), verdict.decision_id, Buffer.from(afterId)];
const metrics = new Metrics({ redisUp: true, snapshot: null, ruleset: null } as unknown as LiveState);

const hsetArgs = ['bench:decisions:1764000000', ...Array.from({ length: 44 }, (_, index) => [decisionId(nowMs + index), encodeRecord(verdict, recordContext)]).flat()];
const NO_ARGS: string[] = [];

const results: MicroResult[] = [
  measure('decide(): found, clean (preferred)', () => decide(clean)),
  measure('decide(): found, two hard stops (blocked)', () => decide(blocked)),
  measure('decide(): not found', () => decide(notFound)),
  measure('decide(): found, clean, without evidence', () => decideWithoutEvidence(clean), { note: 'what a cache-hot check runs when its template matches' }),
  measure('serialise: JSON.stringify(verdict with evidence) (reference)', () => JSON.stringify(verdict), { note: 'what serialiseVerdict replaced' }),
  measure('serialise: templates.settle + serialiseVerdict', () => serialiseVerdict(toVerdict(templates.settle(decide(clean), lookup, snapshot, ruleset, false, '123456'), '123456', nowMs, true)) , { note: 'includes decide() and toVerdict()' }),
  measure('decide: assess() with the templates as decider (the cache-hot decision step)', () => assess(hotFacts, hotAsker, settle),
    { note: 'what EligibilityService runs per cache-hot check before the verdict is stamped' }),
  measure('decide: templates.settleInput alone (reference)', () => templates.settleInput({
    lookup, ruleset, snapshot, backendAvailable: true, maxDataAgeSeconds: 172_800, nowMs, onDoNotUseList: noneListed.has('123456', nowMs),
  }, '123456'), { note: 'the same step without assess(): its price is the difference' }),
  measure('decide: assess() with templates, an account with a policy', () => assess(policyFacts, hotAsker, settle),
    { note: 'the cache-hot step with the policy\'s compiled rule set (its own templates)' }),
  measure('overrides: OverrideEffect.apply(conditional verdict), account without overrides', () => effect.apply(reviewVerdict, 'none', null, 'check'),
    { note: 'one Map lookup; the review sighting is a no-op here' }),
  measure('overrides: OverrideEffect.apply(conditional verdict), one covering override', () => effect.apply(reviewVerdict, 'one', null, 'check'),
    { note: 'coverage and the lifted verdict (a new object)' }),
  measure('overrides: OverrideEffect.apply(conditional verdict), account with 1,000 overrides', () => effect.apply(reviewVerdict, 'many', null, 'check'),
    { note: 'the same work: the registry is keyed by account and MC' }),
  measure('serialise: templates.settleInput + serialiseVerdict', () => serialiseVerdict(toVerdict(templates.settleInput(clean, '123456'), '123456', nowMs, true)), { note: 'the cache-hot path: evidence only on a template miss' }),
  measure('serialise: serialiseVerdict(templated verdict)', () => serialiseVerdict(templated)),
  measure('serialise: verdictBytes(templated).writeTo(send buffer)', () => templatedBytes.writeTo(sendBuffer), { note: 'the template\'s body copied into a buffer' }),
  measure('serialise: verdictBytes(templated).ownBytes()', () => templatedBytes.ownBytes(), { note: 'what the HTTP adapter sends: id and time spliced into the template\'s body' }),
  measure('serialise: a carrier\'s first cache hit (a new lookup each time): settleInput + the adapter\'s body', () => {
    const missed: DecisionInput = { ...clean, lookup: { kind: 'found', record: missedRecord } };
    const body = verdictBytes(toVerdict(templates.settleInput(missed, '123456'), '123456', nowMs, false))!;
    return (body instanceof VerdictBytes ? body.ownBytes() : null) ?? body.writeTo(sendBuffer);
  }, { batch: 2_000, note: 'a new template per check (its text from stringifyVerdict): its first verdict written from its pieces, not encoded whole' }),
  measure('serialise: serialiseVerdict(verdict without template)', () => serialiseVerdict(untemplated), { note: 'cache miss: the source list serialised once per snapshot' }),
  measure('serialise: JSON.stringify(verdict without template) (reference)', () => JSON.stringify(untemplated), { note: 'what the miss path replaced' }),
  measure('serialise: unknown MC, settleInput + verdictBytes().writeTo() (shared not-found template)', () => verdictBytes(unknownVerdict())!.writeTo(sendBuffer),
    { note: 'a cache-cold check of an unknown MC number: one template per snapshot' }),
  measure('serialise: unknown MC, decide() + verdictBytes().writeTo() (reference)', () => verdictBytes(unknownFresh())!.writeTo(sendBuffer),
    { note: 'what the shared not-found template replaced: evidence and the verdict head per check' }),
  measure('record: encodeRecord(unknown MC, shared not-found template)', () => encodeRecord(unknownVerdict(), recordContext), { note: 'includes settleInput + toVerdict' }),
  measure('record: encodeRecord(unknown MC, decide()) (reference)', () => encodeRecord(unknownFresh(), recordContext), { note: 'includes decide() + toVerdict: what the shared template replaced' }),
  measure('record: encodeRecord(templated cache-hot verdict)', () => encodeRecord(templated, recordContext), { note: 'tail cached per evidence object' }),
  measure('record: encodeRecordGeneral() (reference)', () => encodeRecordGeneral(templated, recordContext), { note: 'what the cached tail replaced' }),
  measure('parse: JSON.parse + zod, canonical body (reference)', () => parseEligibilityBodyGeneral(canonicalBody), { note: 'the general path' }),
  measure('parse: parseCanonicalBody, canonical body', () => parseCanonicalBody(canonicalBody)),
  measure('parse: normaliseMcNumber("MC-123456")', () => normaliseMcNumber('MC-123456')),
  measure('parse: normaliseMcNumber("123456") (canonical)', () => normaliseMcNumber('123456'), { note: 'what nearly every request sends: the character-loop shortcut' }),
  measure('decision id: decisionId() (pooled UUIDv7)', () => decisionId(nowMs)),
  measure('decision id: uuid v7() (reference)', () => uuidv7(), { note: 'what decisionId() replaced' }),
  measure('request id: crypto.randomUUID() (reference)', () => randomUUID(), { note: 'what the prefix + counter ids replaced' }),
  measure('headers: rateLimitHeaders() (memoised per decision)', () => rateLimitHeaders(budget)),
  measure('headers: verdictHeadBlock() (memoised per decision)', () => verdictHeadBlock(budget)),
  // Longer warm-ups for the two logRequest rows, the production shape first: the second shape of call deoptimises
  // what the first one left, and V8 took a few hundred thousand calls to settle again (bimodal medians otherwise).
  measure('log: logRequest() as the eligibility route calls it', () => logRequest(log, line, undefined, logParts),
    { note: 'the members pre-rendered as bytes (HttpResponse.logParts): the production path', batch: 100_000 }),
  measure('log: logRequest() access line', () => logRequest(log, line, extra), { note: 'extra fields as an object', batch: 100_000 }),
  measure('log: log.info() of the same line (reference)', () => log.info({ ...line, ...extra }, 'request'), { note: 'what logRequest replaced' }),
  measure('metrics: countVerdict()', () => metrics.countVerdict(verdict)),
  measure('carrier: decodeCarrier(found, stored form)', () => decodeCarrier('123456', storedCarrier),
    { note: 'a cache-cold check of a found carrier: its days formatted once each' }),
  measure('evaluated_at: new Date(ms).toISOString() (reference)', () => new Date(nowMs).toISOString(), { note: 'the service formats it once per ms' }),
  // A turn's record HSET at ~44 cache-hot checks: the key and two arguments per record (src/redis/flat-command.ts).
  measure('redis: new Command(hset, 89 arguments) (reference)', () => new Command('hset', hsetArgs, { replyEncoding: 'utf8' }),
    { note: 'ioredis copies the arguments with flat(): what sendFlat skips', batch: 2_000 }),
  measure('redis: sendFlat\'s Command (built empty, arguments set)', () => {
    const command = new Command('hset', NO_ARGS, { replyEncoding: 'utf8' });
    command.args = hsetArgs;
    return command;
  }, { batch: 2_000 }),
  measure('redis: 89 arguments .flat() (reference)', () => hsetArgs.flat(), { batch: 2_000 }),
  measure('redis: 89 arguments .slice() (reference)', () => hsetArgs.slice(), { batch: 2_000 }),
];

report('piece', results);
