// A verdict as bytes: the JSON templates of a cache-hot check (VerdictTemplates), the verdict's body spliced from
// them or from the snapshot's pre-encoded source list (verdictBytes, verdictOutput), and serialiseVerdict, which
// gives exactly JSON.stringify's text (test/unit/fast-path-differential.test.ts holds the two equal).
import type { CarrierLookup, SnapshotMeta } from '../core/carrier.js';
import { decideWithoutEvidence, withEvidence, type Decision, type DecisionFields, type DecisionInput } from '../core/decide.js';
import type { Evidence } from '../core/evidence.js';
import type { PublishedRuleSet } from '../core/ruleset.js';
import { verdictOf, type Verdict } from '../core/verdict.js';
import { jsonString, utf8, writeBytes, writeText } from '../log-bytes.js';

/**
 * The verdict's JSON for one (carrier lookup, snapshot, rule set, do-not-use flag, decision), cut around the
 * four fields that change per request (decision_id, evaluated_at, cache_hit, mc_number). A cache-hot check re-runs
 * decide() (its answer depends on the clock) and, when the decision is the same as the template's, reuses the
 * template's decision objects and answers with head + id + middle + time + tail + MC + rest instead of JSON.stringify of a
 * ~1 KB verdict with evidence (4.6 µs → 23 ns in bench/micro; bench/README.md). The evidence is a pure function of the
 * same inputs (src/core/evidence.ts), so equal inputs and an equal decision mean equal evidence.
 */
interface VerdictTemplate {
  lookup: CarrierLookup;
  snapshot: SnapshotMeta;
  ruleset: PublishedRuleSet;
  onDoNotUseList: boolean;
  /**
   * The MC number the decision is about, or null when the decision names none: a not-found decision and its
   * evidence are the same for every unknown MC number of a snapshot, so one template serves them all (the
   * cache-cold check, mostly unknown numbers in the bench, answers from it instead of building evidence and
   * JSON per request).
   */
  mc: string | null;
  decision: Decision;
  head: string;
  middle: string;
  /** From after evaluated_at's value up to mc_number's value, for cache_hit true and false. */
  tailHit: string;
  tailMiss: string;
  /** After mc_number's value: carrier and evidence. */
  rest: string;
  // The three below are filled in on use, but every template is made with them (makeTemplate): added later, in
  // whichever order a template's first uses came, they gave templates several hidden classes, and the optimised
  // template lookup deoptimised on each new one ("wrong map" under --trace-deopt).
  /** The access line's decision members after mc_number (verdictOutput), rendered and encoded on first use. */
  logRest: Uint8Array | undefined;
  /** Its bytes (TemplateBytes), encoded by VerdictBytes for the second verdict of a one-MC template, else the first. */
  bytes: TemplateBytes | undefined;
  /** Set when a one-MC template's first verdict was written from its text (VerdictBytes.encoded). */
  answeredOnce: boolean;
}

/**
 * The evaluated_at last written into each whole body: many verdicts of a template share a millisecond under load
 * (isoTimestamp gives them the same string), and then only the id changes (24 of the 60 bytes left alone).
 */
interface SplicedTimes { hit: string; miss: string }

/** ASCII length of a decision id (UUID) and of evaluated_at (ISO 8601 with milliseconds). */
const ID_LENGTH = 36;
const TIME_LENGTH = 24;

/**
 * A template's bytes, encoded once (VerdictBytes.encoded says when).
 * - `whole`, for a template of one MC number: the whole body for cache_hit true and for false, with blanks where
 *   the decision id and the time go. A response splices those 60 bytes in place and hands the buffer to the HTTP
 *   adapter, which uWS copies before the next response is built: ~3.4 KB copied once per response instead of
 *   twice, and two short writes instead of five native calls.
 * - `pieces`, for the not-found template that serves every unknown MC number: the pieces around the id, the time
 *   and the MC number, written one after another into the adapter's send buffer.
 */
type TemplateBytes =
  | { kind: 'whole'; hit: Buffer; miss: Buffer; idAt: number; timeAt: number; spliced: SplicedTimes }
  | { kind: 'pieces'; head: Buffer; middle: Buffer; tailHit: Buffer; tailMiss: Buffer; rest: Buffer };

function templateBytes(template: VerdictTemplate): TemplateBytes {
  if (template.mc === null) {
    return {
      kind: 'pieces', head: Buffer.from(template.head), middle: Buffer.from(template.middle), tailHit: Buffer.from(template.tailHit),
      tailMiss: Buffer.from(template.tailMiss), rest: Buffer.from(template.rest),
    };
  }
  const after = mcJson(template.mc) + template.rest;
  const idAt = Buffer.byteLength(template.head);
  const timeAt = idAt + ID_LENGTH + Buffer.byteLength(template.middle);
  // Its own memory (Buffer.alloc, not a slice of Node's shared pool): it is written in place on every response.
  const whole = (tail: string): Buffer => {
    const text = `${template.head}${' '.repeat(ID_LENGTH)}${template.middle}${' '.repeat(TIME_LENGTH)}${tail}${after}`;
    const body = Buffer.alloc(Buffer.byteLength(text));
    body.write(text);
    return body;
  };
  return { kind: 'whole', hit: whole(template.tailHit), miss: whole(template.tailMiss), idAt, timeAt, spliced: { hit: '', miss: '' } };
}

/** Copies `text` to `target` at `offset` when it is `length` ASCII characters; false (nothing sane written) if not. */
function spliceAscii(target: Buffer, offset: number, text: string, length: number): boolean {
  if (text.length !== length) return false;
  for (let index = 0; index < length; index += 1) {
    const code = text.charCodeAt(index);
    if (code > 0x7f) return false;
    target[offset + index] = code;
  }
  return true;
}

/** Templates by the evidence object they reuse: serialiseVerdict finds a verdict's template in one lookup. */
const templateByEvidence = new WeakMap<Evidence, VerdictTemplate>();

function sameDecision(a: DecisionFields, b: DecisionFields): boolean {
  if (a.eligible !== b.eligible || a.found !== b.found || a.tier !== b.tier || a.degraded !== b.degraded
    || a.ruleset_version !== b.ruleset_version || a.data_as_of !== b.data_as_of || a.reasons.length !== b.reasons.length) return false;
  for (let index = 0; index < a.reasons.length; index += 1) if (a.reasons[index] !== b.reasons[index]) return false;
  if (a.carrier === null || b.carrier === null) return a.carrier === b.carrier;
  return a.carrier.dot_number === b.carrier.dot_number && a.carrier.legal_name === b.carrier.legal_name
    && a.carrier.dba_name === b.carrier.dba_name;
}

const ID_FIELD = '"decision_id":"';
const TIME_FIELD = '"evaluated_at":"';
const MC_AFTER_MISS = '"cache_hit":false,"mc_number":';

// The last MC number's JSON: consecutive verdicts mostly share it (cache-hot), so one per run, and quoted in place
// when nothing needs escaping (jsonString): a cache-cold check's new number each time was a JSON.stringify call.
let lastMc = '';
let lastMcJson = '""';
function mcJson(mc: string): string {
  if (mc !== lastMc) {
    lastMcJson = jsonString(mc);
    lastMc = mc;
  }
  return lastMcJson;
}

function makeTemplate(lookup: CarrierLookup, snapshot: SnapshotMeta, ruleset: PublishedRuleSet, onDoNotUseList: boolean, mc: string, decision: Decision): VerdictTemplate {
  // decision_id, evaluated_at, cache_hit and mc_number come before carrier and evidence in the verdict, and a
  // JSON string value can never contain an unescaped quote, so the first occurrence of each marker is the field.
  // stringifyVerdict gives JSON.stringify's text with the snapshot's source list serialised once per snapshot: a
  // carrier's first cache hit makes its template, and JSON.stringify of the ~3 KB of sources was ~4 of the ~14 µs
  // that cost.
  const json = stringifyVerdict(verdictOf(decision, mc, '', '', false));
  const id = json.indexOf(`${ID_FIELD}"`);
  const time = json.indexOf(`${TIME_FIELD}"`);
  const hit = json.indexOf(MC_AFTER_MISS);
  const head = json.slice(0, id + ID_FIELD.length);
  const middleEnd = time + TIME_FIELD.length;
  const middle = json.slice(id + ID_FIELD.length, middleEnd);
  const mcAt = hit + MC_AFTER_MISS.length;
  const mcEnd = mcAt + mcJson(mc).length;
  const rest = json.slice(mcEnd);
  const template: VerdictTemplate = {
    lookup, snapshot, ruleset, onDoNotUseList, mc: lookup.kind === 'not_found' ? null : mc, decision, head, middle,
    tailHit: '","cache_hit":true,"mc_number":', tailMiss: `",${MC_AFTER_MISS}`, rest,
    logRest: undefined, bytes: undefined, answeredOnce: false,
  };
  // The pieces must rebuild exactly what JSON.stringify gives; anything unexpected keeps the slow path. head, middle
  // and rest are the text's own slices, in order when the markers are, so they rebuild it exactly when what lies
  // between middle and rest is the miss tail and the MC number: a ~40-character comparison instead of joining and
  // comparing the whole ~3.4 KB.
  if (id >= 0 && time > id && hit > time && json.slice(middleEnd, mcEnd) === template.tailMiss + mcJson(mc)) {
    templateByEvidence.set(decision.evidence, template);
  }
  return template;
}

/** The verdict's template when its bytes can be used for it: same evidence object, same decision fields. */
function templateOf(verdict: Verdict): VerdictTemplate | undefined {
  const template = templateByEvidence.get(verdict.evidence);
  if (template === undefined || (template.mc !== null && template.mc !== verdict.mc_number) || template.decision.reasons !== verdict.reasons
    || template.decision.carrier !== verdict.carrier || template.decision.eligible !== verdict.eligible
    || template.decision.found !== verdict.found || template.decision.tier !== verdict.tier
    || template.decision.degraded !== verdict.degraded || template.decision.ruleset_version !== verdict.ruleset_version
    || template.decision.data_as_of !== verdict.data_as_of) {
    return undefined;
  }
  return template;
}

/**
 * The verdict as JSON: from its template when it has one (see VerdictTemplate), else JSON.stringify. Both give
 * the same bytes (test/unit/fast-path-differential.test.ts).
 */
export function serialiseVerdict(verdict: Verdict): string {
  const template = templateOf(verdict);
  if (template === undefined) return stringifyVerdict(verdict);
  return template.head + verdict.decision_id + template.middle + verdict.evaluated_at
    + (verdict.cache_hit ? template.tailHit : template.tailMiss) + mcJson(verdict.mc_number) + template.rest;
}

/** The source list's JSON (and its UTF-8), once per snapshot: evidence.sources is one array per snapshot meta. */
interface SourcesJson { text: string; bytes: Buffer | undefined }
const sourcesJson = new WeakMap<Evidence['sources'], SourcesJson>();

/**
 * A verdict without a template (a cache miss, a degraded answer) cut into the part before the source list and the
 * source list's JSON, which is ~3 KB of the ~3.4 KB and the same for every verdict of a snapshot: serialised once
 * per snapshot instead of per request. Null when the verdict is not of the shape the cut relies on (evidence is the
 * verdict's last field; its keys are snapshot_version, reasons, sources in that order): then JSON.stringify.
 */
function splitVerdict(verdict: Verdict): { head: string; sources: SourcesJson } | null {
  const { evidence } = verdict;
  let position = 0;
  for (const name in evidence) {
    if (name !== EVIDENCE_KEYS[position]) return null;
    position += 1;
  }
  if (position !== EVIDENCE_KEYS.length || !Array.isArray(evidence.sources)) return null;
  let sources = sourcesJson.get(evidence.sources);
  if (sources === undefined) {
    sources = { text: JSON.stringify(evidence.sources), bytes: undefined };
    sourcesJson.set(evidence.sources, sources);
  }
  // `"evidence":null}` closes the copy (evidence is the last field), and is replaced by the evidence's JSON.
  const rest = JSON.stringify({ ...verdict, evidence: null });
  if (!rest.endsWith(EVIDENCE_PLACEHOLDER)) return null;
  const head = `${rest.slice(0, -EVIDENCE_PLACEHOLDER.length)}"evidence":{"snapshot_version":${JSON.stringify(evidence.snapshot_version)}`
    + `,"reasons":${JSON.stringify(evidence.reasons)},"sources":`;
  return { head, sources };
}
const EVIDENCE_KEYS = ['snapshot_version', 'reasons', 'sources'] as const;
const EVIDENCE_PLACEHOLDER = '"evidence":null}';
const EVIDENCE_END = '}}';
const EVIDENCE_END_BYTES = Buffer.from(EVIDENCE_END);

/** JSON.stringify(verdict) for a verdict without a template, with the source list serialised once per snapshot. */
function stringifyVerdict(verdict: Verdict): string {
  const split = splitVerdict(verdict);
  return split === null ? JSON.stringify(verdict) : split.head + split.sources.text + EVIDENCE_END;
}

/**
 * An untemplated verdict as bytes: its own head encoded per request, the snapshot's source list copied from bytes
 * encoded once per snapshot. Gives exactly stringifyVerdict's bytes (test/unit/fast-path-differential.test.ts).
 */
export class SplitVerdictBytes {
  constructor(private readonly head: string, private readonly sources: SourcesJson, private readonly verdict: Verdict) {}

  writeTo(target: Buffer): number {
    const sources = this.sources.bytes ??= Buffer.from(this.sources.text);
    // A UTF-16 unit is at most 3 UTF-8 bytes: the bound guarantees write() never truncates the head.
    if (this.head.length * 3 + sources.length + EVIDENCE_END.length > target.length) return -1;
    return writeBytes(target, writeBytes(target, target.write(this.head, 0, 'utf8'), sources), EVIDENCE_END_BYTES);
  }

  toString(): string {
    return serialiseVerdict(this.verdict);
  }
}

/**
 * A templated verdict as bytes (the HTTP adapter's ByteBody): the template's bytes encoded once (TemplateBytes),
 * and per verdict only the id and the time written into them. Gives exactly serialiseVerdict's bytes
 * (test/unit/fast-path-differential.test.ts).
 */
export class VerdictBytes {
  /** encoded()'s answer, decided once per verdict (the adapter asks ownBytes, then maybe writeTo). */
  private bytes: TemplateBytes | null | undefined = undefined;

  constructor(private readonly template: VerdictTemplate, private readonly verdict: Verdict) {}

  /**
   * The template's bytes, or null for the first verdict of a one-MC template: that template is new with its carrier's
   * cache entry, and a cache miss (the cache-cold check) mostly answers once, so encoding its two whole bodies
   * (two 3.4 KB buffers of their own) would cost more than writing its text once.
   */
  private encoded(): TemplateBytes | null {
    if (this.bytes !== undefined) return this.bytes;
    const { template } = this;
    if (template.bytes === undefined && template.mc !== null && !template.answeredOnce) {
      template.answeredOnce = true;
      this.bytes = null;
    } else {
      this.bytes = template.bytes ??= templateBytes(template);
    }
    return this.bytes;
  }

  /** The whole body in the template's own buffer (valid until the template's next verdict), or null (see writeTo). */
  ownBytes(): Buffer | null {
    const bytes = this.encoded();
    if (bytes === null || bytes.kind !== 'whole') return null;
    const { verdict } = this;
    const body = verdict.cache_hit ? bytes.hit : bytes.miss;
    if (!spliceAscii(body, bytes.idAt, verdict.decision_id, ID_LENGTH)) return null;
    const { spliced } = bytes;
    const time = verdict.evaluated_at;
    if (time === (verdict.cache_hit ? spliced.hit : spliced.miss)) return body;
    if (!spliceAscii(body, bytes.timeAt, time, TIME_LENGTH)) {
      // Half written: whatever this buffer holds at the time's place is no longer known.
      if (verdict.cache_hit) spliced.hit = '';
      else spliced.miss = '';
      return null;
    }
    if (verdict.cache_hit) spliced.hit = time;
    else spliced.miss = time;
    return body;
  }

  writeTo(target: Buffer): number {
    const bytes = this.encoded();
    // The first verdict of a one-MC template is written from its text's pieces: joining them first made V8 copy
    // the ~3.4 KB into a flat string before encoding it.
    if (bytes === null) return writePieces(this.template, this.verdict, target);
    if (bytes.kind === 'whole') {
      const body = this.ownBytes();
      return body === null || body.length > target.length ? -1 : body.copy(target, 0);
    }
    return writePieces(bytes, this.verdict, target);
  }

  toString(): string {
    return serialiseVerdict(this.verdict);
  }
}

/** A template's pieces around the id, the time and the MC number: its text (strings) or their UTF-8 (bytes). */
interface TemplatePieces {
  head: string | Uint8Array;
  middle: string | Uint8Array;
  tailHit: string | Uint8Array;
  tailMiss: string | Uint8Array;
  rest: string | Uint8Array;
}

/** The most bytes a piece can take: a UTF-16 unit is at most 3 UTF-8 bytes. */
function room(piece: string | Uint8Array): number {
  return typeof piece === 'string' ? piece.length * 3 : piece.length;
}

function put(target: Buffer, offset: number, piece: string | Uint8Array): number {
  return typeof piece === 'string' ? writeText(target, offset, piece) : writeBytes(target, offset, piece);
}

/**
 * A templated verdict written from its template's pieces into `target`, the verdict's id, time and MC number
 * between them: the not-found template's bytes for every unknown MC number, a one-MC template's text for its first
 * verdict. The bound makes sure no write truncates; the id's and the time's lengths are spliceAscii's to check.
 * -1 when it does not fit or the id or time is not ASCII of its length (the caller then sends the text). Short
 * ASCII pieces go through TypedArray.set and loops rather than Buffer.copy and Buffer.write, whose argument
 * handling cost ~3.8k of a cache-cold check's instructions under callgrind.
 */
function writePieces(pieces: TemplatePieces, verdict: Verdict, target: Buffer): number {
  const tail = verdict.cache_hit ? pieces.tailHit : pieces.tailMiss;
  const mc = mcJson(verdict.mc_number);
  if (room(pieces.head) + ID_LENGTH + room(pieces.middle) + TIME_LENGTH + room(tail) + room(mc) + room(pieces.rest) > target.length) return -1;
  let offset = put(target, 0, pieces.head);
  if (!spliceAscii(target, offset, verdict.decision_id, ID_LENGTH)) return -1;
  offset = put(target, offset + ID_LENGTH, pieces.middle);
  if (!spliceAscii(target, offset, verdict.evaluated_at, TIME_LENGTH)) return -1;
  offset = writeText(target, put(target, offset + TIME_LENGTH, tail), mc);
  return put(target, offset, pieces.rest);
}

/**
 * The verdict as bytes: spliced from its template when it has one, else its own head and the snapshot's
 * pre-encoded source list; null when it has to be JSON.stringify'd whole (serialiseVerdict).
 */
export function verdictBytes(verdict: Verdict): VerdictBytes | SplitVerdictBytes | null {
  return bytesOf(verdict, templateOf(verdict));
}

function bytesOf(verdict: Verdict, template: VerdictTemplate | undefined): VerdictBytes | SplitVerdictBytes | null {
  if (template !== undefined) return new VerdictBytes(template, verdict);
  const split = splitVerdict(verdict);
  return split === null ? null : new SplitVerdictBytes(split.head, split.sources, verdict);
}

/** The access line's decision members after mc_number (the same for every verdict of a template). */
function renderLogRest(verdict: Verdict): string {
  return `,"eligible":${verdict.eligible},"tier":${JSON.stringify(verdict.tier)},"reasons":${JSON.stringify(verdict.reasons)}`
    + `,"ruleset_version":${JSON.stringify(verdict.ruleset_version)},"data_as_of":${JSON.stringify(verdict.data_as_of)}`;
}

/** What the HTTP route sends for a verdict (verdictOutput). */
export interface VerdictOutput {
  /** The body as bytes (as verdictBytes), or null when it has to be JSON.stringify'd whole. */
  bytes: VerdictBytes | SplitVerdictBytes | null;
  /** The access line's mc_number value, as JSON. */
  logMc: string;
  /**
   * The access line's decision members after mc_number, `,"eligible":…,"tier":…,"reasons":[…],"ruleset_version":…,
   * "data_as_of":…`: a template's as bytes, rendered and encoded once per template (its decision) instead of field
   * by field on every line; a verdict without a template's as text.
   */
  logRest: string | Uint8Array;
}

/** The verdict's bytes and access-line members, from one template lookup. */
export function verdictOutput(verdict: Verdict): VerdictOutput {
  const template = templateOf(verdict);
  return {
    bytes: bytesOf(verdict, template),
    logMc: mcJson(verdict.mc_number),
    logRest: template === undefined ? renderLogRest(verdict) : template.logRest ??= utf8(renderLogRest(verdict)),
  };
}

/** One verdict template per carrier lookup (it dies with the lookup when the carrier LRU drops it). */
export class VerdictTemplates {
  private readonly byLookup = new WeakMap<CarrierLookup, VerdictTemplate>();

  /**
   * The decision to answer with: the template's own objects when the fresh decision is the same as the
   * template's (so serialiseVerdict can use its bytes), else the fresh one, which becomes the new template.
   */
  settle(decision: Decision, lookup: CarrierLookup | null, snapshot: SnapshotMeta | null, ruleset: PublishedRuleSet | null,
    onDoNotUseList: boolean, mc: string): Decision {
    if (!lookup || !snapshot || !ruleset || decision.degraded) return decision;
    const template = this.byLookup.get(lookup);
    if (template && template.snapshot === snapshot && template.ruleset === ruleset && template.onDoNotUseList === onDoNotUseList
      && (template.mc === null || template.mc === mc) && sameDecision(template.decision, decision)) {
      return template.decision;
    }
    this.byLookup.set(lookup, makeTemplate(lookup, snapshot, ruleset, onDoNotUseList, mc, decision));
    return decision;
  }

  /**
   * settle(decide(input), ...) without building the evidence when the template's decision is the same: the
   * evidence is a pure function of the reasons and of the inputs the template is keyed by (lookup, snapshot,
   * rule set, do-not-use flag; maxDataAgeSeconds is one per service). Building it was most of decide()'s cost:
   * settle + serialise 4.7 µs → settleInput + serialise 1.2 µs for a clean carrier in bench/micro (decide() 3.2 µs,
   * decideWithoutEvidence() 0.9 µs; bench/README.md).
   */
  settleInput(input: DecisionInput, mc: string): Decision {
    // The template test repeats settle()'s on purpose: one shared method for both measured 340 → 630 ns for
    // settleInput + serialiseVerdict in bench/micro, the two call sites seeing different object shapes.
    const { lookup, snapshot, ruleset } = input;
    const fields = decideWithoutEvidence(input);
    const onDoNotUseList = input.onDoNotUseList === true;
    if (lookup && snapshot && ruleset && !fields.degraded) {
      const template = this.byLookup.get(lookup);
      if (template && template.snapshot === snapshot && template.ruleset === ruleset && template.onDoNotUseList === onDoNotUseList
        && (template.mc === null || template.mc === mc) && sameDecision(template.decision, fields)) {
        return template.decision;
      }
    }
    return this.settle(withEvidence(input, fields), lookup, snapshot, ruleset, onDoNotUseList, mc);
  }
}
