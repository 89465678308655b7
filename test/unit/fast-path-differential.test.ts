// The hot path's shortcuts against the general path they stand in for, on generated inputs (a small seeded
// generator, so a failure names its seed and replays):
// - body: the canonical-body fast path vs JSON.parse + zod (same value, or the fast path declines);
// - verdict: template bytes (serialiseVerdict after VerdictTemplates.settle) vs JSON.stringify of the verdict
//   decide() gives at that moment, over many checks of the same carriers at moving clock readings;
// - headers: the pre-joined header block vs the header map the classic path wrote.
// Equal body parse + equal verdict bytes + equal headers = the same answer (status, body, headers).
import { describe, expect, it } from 'vitest';
import type { CarrierLookup, CarrierRecord, SnapshotMeta, WatchlistHit } from '../../src/core/carrier.js';
import { decide } from '../../src/core/decide.js';
import { DEFAULT_RULE_SET, type PublishedRuleSet } from '../../src/core/ruleset.js';
import { AppError } from '../../src/errors.js';
import { verdictHeadBlock } from '../../src/eligibility/route.js';
import { parseCanonicalBody, parseEligibilityBody, parseEligibilityBodyGeneral } from '../../src/eligibility/body.js';
import { rateLimitHeaders, type BudgetDecision } from '../../src/ratelimit/budget.js';
import { NOT_FOUND } from '../../src/store/carrier-codec.js';
import {
  serialiseVerdict, VerdictBytes, verdictBytes, verdictOutput, VerdictTemplates, type VerdictOutput,
} from '../../src/eligibility/verdict-bytes.js';
import { toVerdict } from '../../src/decisions/decision-id.js';
import type { Verdict } from '../../src/core/verdict.js';

/** The access line's decision members as one text (`,"mc_number":…` and the rest), as the route writes them. */
function logMembersText(output: VerdictOutput): string {
  return `,"mc_number":${output.logMc}${typeof output.logRest === 'string' ? output.logRest : Buffer.from(output.logRest).toString('utf8')}`;
}

/** mulberry32: a tiny seeded PRNG, enough to generate test inputs reproducibly. */
function prng(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  const pick = <T>(items: readonly T[]): T => items[int(0, items.length - 1)] as T;
  return { next, int, pick, chance: (p: number) => next() < p };
}
type Rng = ReturnType<typeof prng>;

const digits = (rng: Rng, count: number) => Array.from({ length: count }, () => String(rng.int(0, 9))).join('');
const ODD_TEXT = ['', ' ', 'MC', 'mc-', 'MC#', 'MC ', '١٢٣', '\\u0031', '\\"', '"', '\\', 'é', '\u2028', '0', '00000000', '-1', '1e3', '12a'];

/** Bodies near the canonical one: most valid, many one edit away, some far off. */
function body(rng: Rng): Buffer {
  const mc = () => (rng.chance(0.2) ? rng.pick(ODD_TEXT) : '') + digits(rng, rng.int(0, 10)) + (rng.chance(0.1) ? rng.pick(ODD_TEXT) : '');
  const string = (text: string) => (rng.chance(0.8) ? `"${text}"` : JSON.stringify(text));
  const shapes = [
    () => `{"mc_number":"${digits(rng, rng.int(1, 8))}"}`,
    () => `{"mc_number":${string(mc())}}`,
    () => `{ "mc_number" : "${digits(rng, rng.int(1, 8))}" }`,
    () => `{"mc_number":"${digits(rng, rng.int(1, 8))}"}${rng.pick(['\n', ' ', '}', 'x', ''])}`,
    () => `{"mc_number":"${digits(rng, rng.int(1, 8))}","reference":${string(rng.chance(0.2) ? 'x'.repeat(rng.int(120, 140)) : digits(rng, 4))}}`,
    () => `{"reference":"r","mc_number":"${digits(rng, rng.int(1, 8))}"}`,
    () => `{"mc_number":${rng.pick(['123', 'null', 'true', '["1"]', '{}', '"1"', '1.5'])}}`,
    () => rng.pick(['', '{}', '[]', 'null', '{"mc_number":', '{"MC_NUMBER":"1"}', '{"mc_number":"1","mc_number":"2"}', '\u0000', '{"mc_number":"12"']),
  ];
  const text = rng.pick(shapes)();
  const bytes = Buffer.from(text, 'utf8');
  if (rng.chance(0.15) && bytes.length > 0) {
    // One raw byte changed, inserted or removed (including bytes that are not valid UTF-8).
    const at = rng.int(0, bytes.length - 1);
    const value = rng.pick([0x22, 0x7d, 0x30, 0x39, 0x20, 0x5c, 0xff, 0xc3, rng.int(0, 255)]);
    const edit = rng.int(0, 2);
    if (edit === 0) bytes[at] = value;
    else return edit === 1 ? Buffer.concat([bytes.subarray(0, at), Buffer.from([value]), bytes.subarray(at)]) : Buffer.concat([bytes.subarray(0, at), bytes.subarray(at + 1)]);
  }
  return bytes;
}

/** What a parser answered: the value, or the client error (code, status, detail, field errors) it threw. */
function outcome(parse: (input: Buffer) => unknown, input: Buffer): string {
  try {
    return JSON.stringify({ value: parse(input) });
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return JSON.stringify({ error: error.kind, detail: error.message, errors: error.errors, headers: error.headers });
  }
}

describe('canonical-body fast path', () => {
  it('answers exactly as JSON.parse + zod on 20,000 generated bodies, and declines whatever it cannot prove', () => {
    for (const seed of [1, 2, 3, 4]) {
      const rng = prng(seed);
      let fast = 0;
      for (let index = 0; index < 5000; index += 1) {
        const input = body(rng);
        const general = outcome(parseEligibilityBodyGeneral, input);
        const combined = outcome(parseEligibilityBody, input);
        if (combined !== general) throw new Error(`seed ${seed} #${index}: body ${JSON.stringify(input.toString('latin1'))}: ${combined} vs ${general}`);
        if (parseCanonicalBody(input) !== null) fast += 1;
      }
      // Both kinds of input were generated: the fast path was taken and declined many times.
      expect(fast).toBeGreaterThan(500);
      expect(fast).toBeLessThan(4500);
    }
  });

  it('takes the canonical body and leaves every near miss to the general path', () => {
    expect(parseCanonicalBody(Buffer.from('{"mc_number":"00123456"}'))).toEqual({ mc_number: '00123456' });
    for (const miss of ['{"mc_number":"000"}', '{"mc_number":"123456789"}', '{"mc_number":""}', '{"mc_number":"12 "}', ' {"mc_number":"1"}', '{"mc_number":"1"} ']) {
      expect(parseCanonicalBody(Buffer.from(miss))).toBeNull();
    }
  });
});

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 5, 15, 12, 0, 0);
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const NAMES = ['ACME "FAST" LLC', 'ÉLAN TRANSPORT', 'A\\B CARRIERS', '"decision_id":"x', '"cache_hit":false', 'Z\u2028Z', 'PLAIN INC'];

function hit(rng: Rng): WatchlistHit {
  return {
    list: rng.pick(['ofac_sdn', 'ofac_cons', 'sam', 'dnu'] as const), entry_id: digits(rng, 4), matched_name: rng.pick(NAMES),
    carrier_name: rng.pick(NAMES), score: rng.pick([0.8, 0.9, 0.95, 1]), exact: rng.chance(0.4),
    ...(rng.chance(0.5) ? { note: rng.pick(NAMES) } : {}), ...(rng.chance(0.3) ? { programs: ['SDGT', rng.pick(NAMES)] } : {}),
  };
}

function record(rng: Rng, mc: string): CarrierRecord {
  const date = (spreadDays: number) => (rng.chance(0.3) ? null : isoDay(NOW + rng.int(-spreadDays, spreadDays) * DAY));
  return {
    mc, dot: rng.chance(0.1) ? null : digits(rng, 7), legal_name: rng.pick(NAMES), dba_name: rng.chance(0.5) ? null : rng.pick(NAMES),
    usdot_status: rng.pick(['A', 'A', 'A', 'I', null]),
    authority: {
      status: rng.pick(['active', 'active', 'active', 'inactive', 'pending', 'none', 'unknown'] as const),
      granted_on: rng.chance(0.1) ? null : isoDay(NOW - rng.int(0, 800) * DAY),
      revocation_pending_on: rng.chance(0.85) ? null : rng.pick(['', isoDay(NOW + rng.int(-5, 5) * DAY)]),
      revoked_on: rng.chance(0.9) ? null : date(10),
    },
    insurance: {
      bipd_on_file_usd: rng.pick([null, 0, 500_000, 750_000, 1_000_000, 5_000_000]),
      bipd_required_usd: rng.pick([null, 750_000, 1_000_000, 5_000_000]),
      cancellation_effective_on: rng.chance(0.7) ? null : date(40),
    },
    hazmat: rng.chance(0.2), safety_rating: rng.pick(['S', 'S', 'C', 'U', null]),
    mcs150_date: rng.chance(0.1) ? null : isoDay(NOW - rng.int(0, 900) * DAY),
    oos_order: rng.chance(0.9) ? null : { since: date(100), reason: rng.pick(NAMES) },
    hits: rng.chance(0.7) ? [] : Array.from({ length: rng.int(1, 3) }, () => hit(rng)),
  };
}

function snapshotMeta(version: string, asOfMs: number): SnapshotMeta {
  const asOf = new Date(asOfMs).toISOString();
  const source = { present: true, as_of: asOf, rows: 10 };
  return {
    version, data_as_of: asOf, created_at: asOf, carrier_count: 10,
    sources: { census: source, authority: source, insurance: source, oos: source, ofac_sdn: source, sam: source },
  };
}

describe('verdict templates', () => {
  it('give the bytes JSON.stringify gives for the verdict decide() gives now, over moving clocks and changing state', () => {
    const rng = prng(7);
    const templates = new VerdictTemplates();
    const rulesets: PublishedRuleSet[] = [
      { version: 1, published_at: '2026-01-01T00:00:00Z', rules: DEFAULT_RULE_SET },
      { version: 2, published_at: '2026-02-01T00:00:00Z', rules: { ...DEFAULT_RULE_SET, safety: { ...DEFAULT_RULE_SET.safety, conditional: 'block' } } },
    ];
    const snapshots = [snapshotMeta('v1', NOW - 3600_000), snapshotMeta('v2', NOW - 40 * 3600_000)];
    const lookups: Array<{ mc: string; lookup: CarrierLookup }> = Array.from({ length: 60 }, (_, index) => {
      const mc = String(100 + index);
      if (index % 10 === 0) return { mc, lookup: { kind: 'not_found' } };
      if (index % 10 === 1) return { mc, lookup: { kind: 'ambiguous', mc, dot_numbers: ['1', '2'] } };
      return { mc, lookup: { kind: 'found', record: record(rng, mc) } };
    });
    let reused = 0;
    let byteBodies = 0;
    let ownBodies = 0;
    const scratch = Buffer.alloc(64 * 1024);
    for (let step = 0; step < 6000; step += 1) {
      const { mc, lookup } = rng.pick(lookups);
      // Mostly near NOW (template reuse), sometimes days apart or near midnight (decisions that change with time).
      const nowMs = NOW + rng.pick([0, rng.int(-1000, 1000), rng.int(-3, 3) * DAY, DAY / 2 + rng.int(-2, 2), rng.int(0, 40) * 3600_000]);
      const ruleset = rng.chance(0.9) ? rulesets[0]! : rulesets[1]!;
      const snapshot = rng.chance(0.9) ? snapshots[0]! : snapshots[1]!;
      const onDoNotUseList = rng.chance(0.05);
      const input = { lookup, ruleset, snapshot, backendAvailable: true, maxDataAgeSeconds: 172_800, nowMs, onDoNotUseList };
      const fresh = decide(input);
      // Both entries: settle() of a full decision, and settleInput(), which builds the evidence only on a miss.
      const used = step % 2 === 0
        ? templates.settle(decide(input), lookup, snapshot, ruleset, onDoNotUseList, mc)
        : templates.settleInput(input, mc);
      if (used !== fresh && used.evidence !== fresh.evidence) reused += 1;
      const cacheHit = rng.chance(0.8);
      const verdict = toVerdict(used, mc, nowMs, cacheHit);
      const expected = JSON.stringify({ ...toVerdict(fresh, mc, nowMs, cacheHit), decision_id: verdict.decision_id, evaluated_at: verdict.evaluated_at });
      const bytes = serialiseVerdict(verdict);
      if (bytes !== expected) throw new Error(`step ${step}, MC ${mc}, now ${new Date(nowMs).toISOString()}:\n${bytes}\n${expected}`);
      // A verdict without a template (another MC number here) takes stringifyVerdict: JSON.stringify's bytes too.
      const untemplated = { ...verdict, mc_number: `${mc}9` };
      const plain = serialiseVerdict(untemplated);
      if (plain !== JSON.stringify(untemplated)) throw new Error(`step ${step}, MC ${mc} (no template):\n${plain}\n${JSON.stringify(untemplated)}`);
      const plainBody = verdictBytes(untemplated);
      const plainSent = plainBody === null ? null : scratch.toString('utf8', 0, plainBody.writeTo(scratch));
      if (plainSent !== plain) throw new Error(`step ${step}, MC ${mc} (no template, bytes):\n${plainSent}\n${plain}`);
      // The byte body the HTTP adapter sends must be the same text, as UTF-8 (carrier names are not ASCII-only).
      const body = verdictBytes(verdict);
      if (body !== null) {
        // Spliced from the template (not the untemplated head + source list): the template was actually used.
        if (body instanceof VerdictBytes) byteBodies += 1;
        const sent = scratch.toString('utf8', 0, body.writeTo(scratch));
        if (sent !== expected) throw new Error(`step ${step}, MC ${mc} (bytes):\n${sent}\n${expected}`);
        // The template's own buffer, spliced in place for this verdict (what the adapter sends when there is one):
        // the same text, though the previous verdict of the template had another id, time or cache_hit.
        const own = body instanceof VerdictBytes ? body.ownBytes() : null;
        if (own !== null) {
          ownBodies += 1;
          if (own.toString('utf8') !== expected) throw new Error(`step ${step}, MC ${mc} (own bytes):\n${own.toString('utf8')}\n${expected}`);
        }
      }
    }
    expect(reused).toBeGreaterThan(1000);
    expect(byteBodies).toBeGreaterThan(1000);
    expect(ownBodies).toBeGreaterThan(1000);
  });

  it('serve every unknown MC number of a snapshot from one not-found template, bytes and access-line members alike', () => {
    const templates = new VerdictTemplates();
    const ruleset = { version: 3, published_at: '', rules: DEFAULT_RULE_SET };
    const snapshot = snapshotMeta('v9', NOW);
    const scratch = Buffer.alloc(64 * 1024);
    let shared: unknown = null;
    // Odd MC numbers too (the route passes on what it cannot normalise): quotes, backslashes, non-ASCII.
    for (const [index, mc] of ['100', '999999', '7', 'MC "12"', 'n\\o', 'Zürich-1', '100'].entries()) {
      const input = { lookup: NOT_FOUND, ruleset, snapshot, backendAvailable: true, maxDataAgeSeconds: 172_800, nowMs: NOW + index, onDoNotUseList: index === 6 };
      const decision = templates.settleInput(input, mc);
      if (index === 0) shared = decision.evidence;
      else if (index !== 6) expect(decision.evidence).toBe(shared);
      for (const cacheHit of [false, true]) {
        const verdict = toVerdict(decision, mc, NOW + index, cacheHit);
        const expected = JSON.stringify({ ...toVerdict(decide(input), mc, NOW + index, cacheHit), decision_id: verdict.decision_id, evaluated_at: verdict.evaluated_at });
        expect(serialiseVerdict(verdict)).toBe(expected);
        const output = verdictOutput(verdict);
        expect(output.bytes).toBeInstanceOf(VerdictBytes);
        // Shared by every unknown number, so it has no whole body of its own: written piece by piece instead.
        expect((output.bytes as VerdictBytes).ownBytes()).toBeNull();
        expect(output.bytes === null ? null : scratch.toString('utf8', 0, output.bytes.writeTo(scratch))).toBe(expected);
        expect(JSON.parse(`{${logMembersText(output).slice(1)}}`)).toEqual({
          mc_number: mc, eligible: false, tier: null, reasons: ['carrier_not_found'], ruleset_version: 3, data_as_of: snapshot.data_as_of,
        });
      }
    }
    // A found carrier's template stays its own MC number's: another number is answered by JSON.stringify.
    const found: CarrierLookup = { kind: 'found', record: record(prng(3), '5') };
    const input = { lookup: found, ruleset, snapshot, backendAvailable: true, maxDataAgeSeconds: 172_800, nowMs: NOW, onDoNotUseList: false };
    const decision = templates.settle(decide(input), found, snapshot, ruleset, false, '5');
    expect(templates.settleInput(input, '6')).not.toBe(decision);
  });

  /** Fresh templates and the check input of one found carrier (a one-MC template). */
  function foundCarrier(seed: number, mc: string) {
    const lookup: CarrierLookup = { kind: 'found', record: record(prng(seed), mc) };
    const ruleset = { version: 1, published_at: '', rules: DEFAULT_RULE_SET };
    const input = { lookup, ruleset, snapshot: snapshotMeta('v', NOW), backendAvailable: true, maxDataAgeSeconds: 172_800, nowMs: NOW, onDoNotUseList: false };
    return { templates: new VerdictTemplates(), input };
  }

  it('write a one-MC template\'s first verdict from its text and encode its bytes from the second on', () => {
    const { templates, input } = foundCarrier(5, '77');
    const scratch = Buffer.alloc(64 * 1024);
    const sent: Array<Buffer | null> = [];
    for (let index = 0; index < 3; index += 1) {
      const verdict = toVerdict(templates.settleInput({ ...input, nowMs: NOW + index }, '77'), '77', NOW + index, index > 0);
      const body = verdictBytes(verdict) as VerdictBytes;
      const own = body.ownBytes();
      sent.push(own);
      // Whichever way it is written, the bytes are the verdict's JSON.
      expect(scratch.toString('utf8', 0, body.writeTo(scratch))).toBe(JSON.stringify(verdict));
      if (own !== null) expect(own.toString('utf8')).toBe(JSON.stringify(verdict));
    }
    // A cache miss's template (answered once) never pays for two whole bodies; a reused one answers from them.
    expect(sent[0]).toBeNull();
    expect(sent[1]).not.toBeNull();
    expect(sent[2]).toBe(sent[1]);
  });

  it('write a one-MC template\'s first verdict piece by piece, a name beyond ASCII included, and refuse an id or time that is not ASCII of its length', () => {
    const scratch = Buffer.alloc(64 * 1024);
    /** The first verdict of a fresh template, altered, written by writeTo (its pieces: no bytes encoded yet). */
    const firstWritten = (alter: (verdict: Verdict) => Verdict) => {
      const { templates, input } = foundCarrier(21, '4321');
      const record = { ...(input.lookup as Extract<CarrierLookup, { kind: 'found' }>).record, legal_name: 'TRANSPORTES ÑANDÚ — CARGA 🚚' };
      const lookup: CarrierLookup = { kind: 'found', record };
      const decision = templates.settleInput({ ...input, lookup }, '4321');
      const verdict = alter(toVerdict(decision, '4321', NOW, true));
      const length = (verdictBytes(verdict) as VerdictBytes).writeTo(scratch);
      return { verdict, text: length < 0 ? null : scratch.toString('utf8', 0, length) };
    };
    const plain = firstWritten((verdict) => verdict);
    expect(plain.text).toBe(JSON.stringify(plain.verdict));
    expect(plain.text).toContain('TRANSPORTES ÑANDÚ — CARGA 🚚');
    expect(firstWritten((verdict) => ({ ...verdict, decision_id: verdict.decision_id.slice(1) })).text).toBeNull();
    expect(firstWritten((verdict) => ({ ...verdict, decision_id: `${verdict.decision_id.slice(0, 35)}é` })).text).toBeNull();
    expect(firstWritten((verdict) => ({ ...verdict, evaluated_at: `${verdict.evaluated_at}0` })).text).toBeNull();
    expect(firstWritten((verdict) => ({ ...verdict, evaluated_at: `${verdict.evaluated_at.slice(0, 20)}é00Z` })).text).toBeNull();
  });

  it('splice each verdict\'s own id and time into a template\'s buffer, also when verdicts share a millisecond', () => {
    const { templates, input } = foundCarrier(9, '88');
    const decision = templates.settleInput(input, '88');
    const own = (verdict: Verdict) => (verdictBytes(verdict) as VerdictBytes).ownBytes()?.toString('utf8') ?? null;
    own(toVerdict(decision, '88', NOW, true)); // the first verdict is written from text; the bytes come next
    // Within one millisecond only the id changes; hit and miss bodies each keep their own time.
    for (const [offset, cacheHit] of [[0, true], [0, true], [0, false], [1, true], [1, false], [1, false], [2, true]] as const) {
      const verdict = toVerdict(decision, '88', NOW + offset, cacheHit);
      expect(own(verdict)).toBe(JSON.stringify(verdict));
    }
    // A time of the right length but not ASCII is refused after part of it was written; the next verdict of the
    // millisecond before it must get its whole time back.
    const before = toVerdict(decision, '88', NOW + 2, true);
    expect(own({ ...before, evaluated_at: `${before.evaluated_at.slice(0, 20)}é00Z` })).toBeNull();
    const after = toVerdict(decision, '88', NOW + 2, true);
    expect(own(after)).toBe(JSON.stringify(after));
  });

  it('refuses to write the not-found template\'s pieces around an id or time that is not ASCII of its length', () => {
    const templates = new VerdictTemplates();
    const input = {
      lookup: NOT_FOUND, ruleset: { version: 3, published_at: '', rules: DEFAULT_RULE_SET }, snapshot: snapshotMeta('v9', NOW),
      backendAvailable: true, maxDataAgeSeconds: 172_800, nowMs: NOW, onDoNotUseList: false,
    };
    const verdict = toVerdict(templates.settleInput(input, '100'), '100', NOW, false);
    const scratch = Buffer.alloc(64 * 1024);
    const written = (altered: Verdict) => (verdictBytes(altered) as VerdictBytes).writeTo(scratch);
    expect(scratch.toString('utf8', 0, written(verdict))).toBe(JSON.stringify(verdict));
    expect(written({ ...verdict, decision_id: verdict.decision_id.slice(1) })).toBe(-1);
    expect(written({ ...verdict, decision_id: `${verdict.decision_id.slice(0, 35)}é` })).toBe(-1);
    expect(written({ ...verdict, evaluated_at: `${verdict.evaluated_at}0` })).toBe(-1);
    expect(written({ ...verdict, evaluated_at: `${verdict.evaluated_at.slice(0, 20)}é00Z` })).toBe(-1);
  });

  it('falls back to JSON.stringify for a verdict that is not its template\'s', () => {
    const templates = new VerdictTemplates();
    const rng = prng(11);
    const lookup: CarrierLookup = { kind: 'found', record: record(rng, '5') };
    const ruleset = { version: 1, published_at: '', rules: DEFAULT_RULE_SET };
    const snapshot = snapshotMeta('v', NOW);
    const input = { lookup, ruleset, snapshot, backendAvailable: true, maxDataAgeSeconds: 172_800, nowMs: NOW, onDoNotUseList: false };
    const verdict = toVerdict(templates.settle(decide(input), lookup, snapshot, ruleset, false, '5'), '5', NOW, true);
    const altered = { ...verdict, eligible: !verdict.eligible, mc_number: '6' };
    expect(serialiseVerdict(altered)).toBe(JSON.stringify(altered));
    // Its access-line members are its own, not a template's.
    expect(JSON.parse(`{${logMembersText(verdictOutput(altered)).slice(1)}}`)).toEqual({
      mc_number: '6', eligible: altered.eligible, tier: altered.tier, reasons: altered.reasons,
      ruleset_version: altered.ruleset_version, data_as_of: altered.data_as_of,
    });
    expect(serialiseVerdict(verdict)).toBe(JSON.stringify(verdict));
    // Without a template the bytes are the verdict's own head and the snapshot's pre-encoded source list.
    const alteredBody = verdictBytes(altered);
    const scratch = Buffer.alloc(64 * 1024);
    expect(alteredBody === null ? null : scratch.toString('utf8', 0, alteredBody.writeTo(scratch))).toBe(JSON.stringify(altered));
    expect(alteredBody?.writeTo(Buffer.alloc(100))).toBe(-1);
    expect(alteredBody?.toString()).toBe(JSON.stringify(altered));
    // A verdict of an unexpected shape has no byte body: it is JSON.stringify'd whole.
    const odd = { ...altered, evidence: { ...altered.evidence, extra: 1 } };
    expect(verdictBytes(odd)).toBeNull();
    expect(serialiseVerdict(odd)).toBe(JSON.stringify(odd));
    // A body that does not fit the send buffer says so (-1) and falls back to its text.
    const body = verdictBytes(verdict);
    expect(body?.writeTo(Buffer.alloc(100))).toBe(-1);
    expect(body?.toString()).toBe(JSON.stringify(verdict));
    // An id or a time that is not of the expected ASCII length is never spliced into the template's own buffer:
    // no own bytes, no write, and the adapter falls back to the text.
    for (const odd of [{ ...verdict, decision_id: 'é'.repeat(36) }, { ...verdict, evaluated_at: `${verdict.evaluated_at}Z` }]) {
      const oddBody = verdictBytes(odd);
      expect(oddBody).toBeInstanceOf(VerdictBytes);
      expect((oddBody as VerdictBytes).ownBytes()).toBeNull();
      expect(oddBody?.writeTo(scratch)).toBe(-1);
      expect(oddBody?.toString()).toBe(JSON.stringify(odd));
    }
    // The template's buffer still answers a well-formed verdict whole after those.
    expect((verdictBytes(verdict) as VerdictBytes).ownBytes()?.toString('utf8')).toBe(JSON.stringify(verdict));
  });
});

describe('pre-joined header block', () => {
  it('holds the header lines the header map held, in the same order', () => {
    const rng = prng(5);
    const lines = (block: string) => block.split('\r\n').map((line) => {
      const colon = line.indexOf(': ');
      return [line.slice(0, colon), line.slice(colon + 2)];
    });
    expect(lines(verdictHeadBlock(null))).toEqual([['content-type', 'application/json'], ['cache-control', 'no-store']]);
    for (let index = 0; index < 500; index += 1) {
      const budget: BudgetDecision = {
        allowed: rng.chance(0.7), limit: rng.int(1, 10_000_000), remaining: rng.int(0, 10_000), retryAfterSeconds: rng.int(1, 60),
        resetSeconds: rng.int(0, 60), fromFallback: rng.chance(0.1),
      };
      expect(lines(verdictHeadBlock(budget))).toEqual([
        ['content-type', 'application/json'], ['cache-control', 'no-store'], ...Object.entries(rateLimitHeaders(budget)),
      ]);
      expect(verdictHeadBlock(budget)).not.toMatch(/\r(?!\n)|(?<!\r)\n/);
    }
  });
});
