// Token-level name scoring. Names are compared as bags of folded tokens, not as strings: each token of one
// name is aligned with its most similar token of the other (order-insensitive, one-to-one, best pairs first),
// and the score is the weighted share of both names' tokens that found a partner, times how similar the
// partners are. Tokens left without a partner pull the score down by their weight, so "JOHN LEE" is far from
// "LEE, John Michael Robert" and "ACME" alone is far from "ACME HOLDINGS INTERNATIONAL BANK". Weights are
// low for particles (AL, DE), generic trade words (TRUCKING, TRADING) and tokens common in the lists or the
// population (JOHN, MOHAMMAD), so the evidence a match rests on is its rare tokens. Numbers must agree:
// "CHULUCANAS 200" is not "CHULUCANAS 2000".
import { jaroWinkler } from './jaro-winkler.js';
import { canonicalWord } from './abbreviations.js';
import { BUSINESS_WORDS, LEGAL_FORMS, personTokenShare } from './name-tables.js';
import { basicTokens, foldToken, isParticle, skeleton, stripForms, withinOneEdit } from './normalise.js';

export interface PreparedName {
  /** The name as written. */
  display: string;
  /** Tokens after normalisation (unfolded; for explanations and the person-name tables). */
  tokens: string[];
  folded: string[];
  skeletons: string[];
  weights: number[];
  total: number;
  /** Per folded token, a bit per letter it holds (a cheap test before Jaro-Winkler). */
  masks: number[];
  /** Folded tokens joined without spaces: "AL QAIDA" and "ALQAIDA" agree here. */
  compact: string;
  /** A legal form (LLC, S.A. DE C.V.) was present: the name is a business. */
  hadLegalForm: boolean;
  /** Indexes of the identifying tokens (not particles, trade words, legal forms or initials). */
  identifying: number[];
  /** The numeric tokens, sorted and joined ('' when none). */
  numbers: string;
  /** OFAC writes individuals "SURNAMES, Given names": how many leading tokens are surnames (0 when no comma). */
  surnames: number;
  /** How many tokens are single letters. */
  letters: number;
}

export type WeightOf = (folded: string, raw: string) => number;

/** Words of no identity: particles weigh almost nothing, generic trade words little. */
export const PARTICLE_WEIGHT = 0.15;
export const GENERIC_WEIGHT = 0.2;
/** Share of an unmatched carrier trade word's weight that is forgiven. */
export const GENERIC_DISCOUNT = 0.9;
const INITIAL_WEIGHT = 0.3;
/** Share of a listed person's unmatched names forgiven when every carrier word found a partner. */
const FULLY_EXPLAINED_DISCOUNT = 0.9;
/** Most a listed person's left-out later given names cost together (see scoreNames). */
const LEFT_OUT_CAP = 0.1;
/** At most this many tokens of a name are compared (list names run to 20 tokens; the first ones identify). */
const MAX_TOKENS = 10;
const SIMS = new Float64Array(MAX_TOKENS * MAX_TOKENS);

export function baseWeight(raw: string): number | null {
  const cached = BASE_CACHE.get(raw);
  if (cached !== undefined) return cached;
  const weight = baseWeightUncached(raw);
  if (BASE_CACHE.size >= 200_000) BASE_CACHE.clear();
  BASE_CACHE.set(raw, weight);
  return weight;
}

const BASE_CACHE = new Map<string, number | null>();

function baseWeightUncached(raw: string): number | null {
  if (isParticle(raw)) return PARTICLE_WEIGHT;
  if (BUSINESS_WORDS.has(raw) || LEGAL_FORMS.has(raw)) return GENERIC_WEIGHT;
  if (raw.length === 1) return INITIAL_WEIGHT;
  return null;
}

/** Everything about one token that does not depend on the name it is in (computed once per distinct token). */
interface TokenFacts {
  folded: string;
  skeleton: string;
  weight: number;
  mask: number;
  identifying: boolean;
  digits: boolean;
}

/**
 * Per weightOf (one per index build), the facts of each distinct raw token: carrier names reuse a small vocabulary,
 * so one Map lookup per token replaces a fold, a skeleton, a weight and a mask each time.
 */
const FACTS = new WeakMap<WeightOf, Map<string, TokenFacts>>();

function factsOf(raw: string, weightOf: WeightOf): TokenFacts {
  let cache = FACTS.get(weightOf);
  if (!cache) { cache = new Map(); FACTS.set(weightOf, cache); }
  let facts = cache.get(raw);
  if (facts) return facts;
  const folded = foldToken(raw);
  facts = {
    folded, skeleton: skeleton(folded), weight: weightOf(folded, raw), mask: letterMask(folded),
    identifying: baseWeight(raw) === null, digits: DIGITS.test(folded),
  };
  if (cache.size >= 300_000) cache.clear();
  cache.set(raw, facts);
  return facts;
}

/** Forgets the token facts computed with this weight function (its weights changed). */
export function forgetTokenFacts(weightOf: WeightOf): void {
  FACTS.delete(weightOf);
}

export function prepareName(display: string, weightOf: WeightOf): PreparedName | null {
  const { tokens: stripped, hadLegalForm } = stripForms(basicTokens(display));
  // Abbreviations and language variants of common words become one word on both sides (INTL / INTERNATIONAL),
  // also with one typo in a long table word (INVERSIOES / INVERSIONES).
  const all = stripped.map(canonicalWord);
  const tokens = all.length > MAX_TOKENS ? all.slice(0, MAX_TOKENS) : all;
  if (tokens.length === 0) return null;
  const n = tokens.length;
  const folded = new Array<string>(n);
  const skeletons = new Array<string>(n);
  const weights = new Array<number>(n);
  const masks = new Array<number>(n);
  const identifying: number[] = [];
  let numbers: string[] | null = null;
  let total = 0;
  let compact = '';
  for (let i = 0; i < n; i++) {
    const facts = factsOf(tokens[i]!, weightOf);
    folded[i] = facts.folded;
    skeletons[i] = facts.skeleton;
    weights[i] = facts.weight;
    masks[i] = facts.mask;
    if (facts.identifying) identifying.push(i);
    if (facts.digits) (numbers ??= []).push(facts.folded);
    total += facts.weight;
    compact += facts.folded;
  }
  const comma = display.indexOf(',');
  const surnames = comma > 0 ? Math.min(n, stripForms(basicTokens(display.slice(0, comma))).tokens.length) : 0;
  return {
    display, tokens, folded, skeletons, weights, masks, total, compact, hadLegalForm, identifying,
    numbers: numbers ? numbers.sort().join(' ') : '', surnames, letters: tokens.reduce((k, token) => k + (token.length === 1 ? 1 : 0), 0),
  };
}

const DIGITS = /^\d+$/;

function letterMask(token: string): number {
  let bits = 0;
  for (let i = 0; i < token.length; i++) {
    const c = token.charCodeAt(i) - 65;
    if (c >= 0 && c < 26) bits |= 1 << c;
  }
  return bits;
}

function popcount(x: number): number {
  let n = 0;
  for (let v = x; v !== 0; v &= v - 1) n += 1;
  return n;
}
/** Highest score a non-exact match on a list name with one identifying token can reach (below any hard stop). */
export const SINGLE_WORD_CAP = 0.94;



/** Similarity of two folded tokens, 0 when too different to be one word spelt two ways. */
const ARTICLES = new Set(['AL', 'EL', 'UL', 'AD', 'ED', 'AS', 'AT', 'AN', 'AR', 'AZ', 'ES', 'ER', 'EZ']);

export function tokenSimilarity(a: string, b: string, skeletonA: string, skeletonB: string, person = false): number {
  if (a === b) return 1;
  // The Arabic article is written AL, EL, UL or assimilated (AD-, AS-, AR-): one word.
  if (ARTICLES.has(a) && ARTICLES.has(b)) return 1;
  if (a.length === 1 || b.length === 1) return a.length === 1 && b.length === 1 ? 0 : a[0] === b[0] ? 0.75 : 0;
  // Two-letter tokens (JV, LI) only match exactly; three-letter ones only a spelling of the same frame and length
  // (ALI / ALE / ALY); acronyms never fold (see foldToken). Numbers only match exactly.
  if (a.length <= 2 || b.length <= 2) return 0;
  if (a.length === 3 || b.length === 3) return a[0] === b[0] && vowelDifferences(a, b) === 1 ? 0.9 : 0;
  const longer = Math.max(a.length, b.length);
  if (Math.min(a.length, b.length) * 2 < longer) return 0;
  const key = a < b ? `${a}|${b}|${person ? 1 : 0}` : `${b}|${a}|${person ? 1 : 0}`;
  const cached = SIMILARITY_CACHE.get(key);
  if (cached !== undefined) return cached;
  const s = similarityUncached(a, b, skeletonA, skeletonB, person);
  if (SIMILARITY_CACHE.size >= 500_000) SIMILARITY_CACHE.clear();
  SIMILARITY_CACHE.set(key, s);
  return s;
}

const SIMILARITY_CACHE = new Map<string, number>();

const VOWEL = /[AEIOUY]/;

/** Same length, differing only where both have a vowel (AMIR / AMER, SONG / SUNG): how many such places, else -1. */
function vowelDifferences(a: string, b: string): number {
  if (a.length !== b.length) return -1;
  let differences = 0;
  for (let i = 0; i < a.length; i++) {
    if (a[i] === b[i]) continue;
    if (!VOWEL.test(a[i]!) || !VOWEL.test(b[i]!)) return -1;
    differences += 1;
  }
  return differences;
}

function similarityUncached(a: string, b: string, skeletonA: string, skeletonB: string, person: boolean): number {
  if (DIGITS.test(a) || DIGITS.test(b)) return 0;
  // A vowel romanised differently is the commonest transliteration difference of all.
  const vowels = vowelDifferences(a, b);
  if (vowels === 1 && a.length >= 4) return 0.96;
  if (vowels === 2 && a.length >= 6) return 0.95;
  const raw = jaroWinkler(a, b);
  let s = raw;
  // Same consonant frame: a vowel romanised differently (HEZBOLLAH / HIZBALLAH, QAIDA / QAEDA). The longer the
  // frame, the less likely two different words share it.
  // Only words already alike (JW ≥ 0.85) are lifted: CROWN / CARVANA share a frame but are not one word.
  if (skeletonA === skeletonB && raw >= 0.85) {
    if (skeletonA.length >= 4) s = Math.max(s, 0.95);
    else if (skeletonA.length === 3) s = Math.max(s, 0.93);
    else if (skeletonA.length === 2) s = Math.max(s, 0.9);
  }
  // Trade words and legal forms pair only when nearly identical: TRUCKING is not TRADING, REEFER not REFINERY.
  if ((GENERIC_TOKENS.has(a) || GENERIC_TOKENS.has(b)) && s < 0.93) return 0;
  // Person names are short and many differ by one letter (HASSAN / GHASSAN / HOSSEIN are three names): a
  // spelling variant must be close on its own, and a consonant frame of three letters is not enough.
  if (person) {
    if (skeletonA.length < 4) s = raw;
    return s >= 0.93 ? s : 0;
  }
  return s >= 0.84 ? s : 0;
}

/** Folded forms of the trade words and legal forms. */
const GENERIC_TOKENS = new Set([...BUSINESS_WORDS, ...LEGAL_FORMS].map(foldToken));
/** The generic tokens and each of their one-deletion variants. */
const GENERIC_NEIGHBOURS = new Set<string>();
for (const token of GENERIC_TOKENS) {
  GENERIC_NEIGHBOURS.add(token);
  for (let i = 0; i < token.length; i++) GENERIC_NEIGHBOURS.add(token.slice(0, i) + token.slice(i + 1));
}
const NEAR_GENERIC_CACHE = new Map<string, boolean>();

/** A folded token one edit from a trade word or legal form (MARITIMI, AIRLINZS): it may pair with one. */
export function nearGeneric(folded: string): boolean {
  const cached = NEAR_GENERIC_CACHE.get(folded);
  if (cached !== undefined) return cached;
  let near = GENERIC_NEIGHBOURS.has(folded);
  for (let i = 0; !near && i < folded.length; i++) near = GENERIC_NEIGHBOURS.has(folded.slice(0, i) + folded.slice(i + 1));
  if (NEAR_GENERIC_CACHE.size >= 200_000) NEAR_GENERIC_CACHE.clear();
  NEAR_GENERIC_CACHE.set(folded, near);
  return near;
}

export interface NameScore {
  score: number;
  /** Every token on both sides found an identical (folded) partner. */
  exact: boolean;
  pairs: Array<[number, number, number]>;
  unmatchedCarrier: number[];
  unmatchedList: number[];
  numbersDisagree: boolean;
  /** The names agree letter for letter once spaces are ignored ("ALQAIDA" / "AL QAIDA"). */
  compactEqual: boolean;
  /**
   * Not exact, and the list name has one identifying word: never strong enough to block without a human
   * ("ACME TRUCKING" / "ACME"); the caller caps the final score at SINGLE_WORD_CAP.
   */
  singleWord: boolean;
}

/**
 * Scores a carrier name against a list name. `listIndividual`: a listed person's unmatched name parts count
 * half, because a sole proprietor's legal name often leaves out middle names the list records.
 */
export function scoreNames(carrier: PreparedName, listed: PreparedName, listIndividual: boolean): NameScore {
  const n = carrier.folded.length;
  const m = listed.folded.length;
  // Similarity of every token pair (names have at most MAX_TOKENS tokens: a fixed scratch matrix, no allocation).
  const sims = SIMS;
  let positive = 0;
  const numbersAgree = carrier.numbers !== '' && carrier.numbers === listed.numbers;
  for (let i = 0; i < n; i++) {
    const a = carrier.folded[i]!;
    for (let j = 0; j < m; j++) {
      const b = listed.folded[j]!;
      let s = 0;
      if (a === b) s = 1;
      else {
        // Two spellings of one word share most of their letters; skip Jaro-Winkler when they do not.
        const ma = carrier.masks[i]!;
        const mb = listed.masks[j]!;
        if (a.length === 1 || b.length === 1 || popcount(ma & mb) * 3 >= 2 * Math.max(popcount(ma), popcount(mb)) || carrier.skeletons[i] === listed.skeletons[j]) {
          s = tokenSimilarity(a, b, carrier.skeletons[i]!, listed.skeletons[j]!, listIndividual);
        }
        if (listIndividual) s = personPair(carrier.tokens[i]!, listed.tokens[j]!, s);
        // An initial stands for a person's name; in a company's name a lone letter is part of an acronym (below).
        else if ((a.length === 1) !== (b.length === 1)) s = 0;
        else if (s === 0) s = entityVariant(carrier.tokens[i]!, listed.tokens[j]!, numbersAgree);
      }
      sims[i * MAX_TOKENS + j] = s;
      if (s > 0) positive += 1;
    }
  }
  const usedA = new Uint8Array(n);
  const usedB = new Uint8Array(m);
  const pairs: Array<[number, number, number]> = [];
  let numerator = 0;
  // Best pairs first (ties: the heavier pair), one-to-one.
  for (let round = Math.min(n, m, positive); round > 0; round--) {
    let best = 0;
    let bi = -1;
    let bj = -1;
    let bestWeight = 0;
    for (let i = 0; i < n; i++) {
      if (usedA[i]) continue;
      for (let j = 0; j < m; j++) {
        if (usedB[j]) continue;
        const s = sims[i * MAX_TOKENS + j]!;
        if (s <= 0 || s < best) continue;
        const weight = carrier.weights[i]! + listed.weights[j]!;
        if (s > best || weight > bestWeight) { best = s; bi = i; bj = j; bestWeight = weight; }
      }
    }
    if (bi < 0) break;
    usedA[bi] = 1; usedB[bj] = 1;
    pairs.push([bi, bj, best]);
    numerator += best * bestWeight;
  }
  // A token of one side written as two adjacent tokens of the other ("BELTRANLEYVA" / "BELTRAN LEYVA").
  if (pairs.length < n && pairs.length < m) {
    numerator += glue(carrier, listed, usedA, usedB, pairs, false) + glue(listed, carrier, usedB, usedA, pairs, true);
  }
  // A listed acronym whose letters the carrier wrote one by one, in any order (T.E.G. / E G T, I.C.E. / C I E).
  if (pairs.length < n && carrier.letters > 1) numerator += scatteredLetters(carrier, listed, usedA, usedB, pairs);
  let denominator = numerator === 0 ? 1 : 0;
  const unmatchedCarrier: number[] = [];
  const unmatchedList: number[] = [];
  for (let i = 0; i < n; i++) if (!usedA[i]) unmatchedCarrier.push(i);
  for (let j = 0; j < m; j++) if (!usedB[j]) unmatchedList.push(j);
  if (numerator > 0) {
    denominator = carrier.total + listed.total;
    // Carriers add trade words to names ("HEZBOLLAH TRUCKING") and scatter the letters of a legal form among them
    // ("MASA FACIL S DE C LOGISTICS"): an unmatched one of theirs costs almost nothing.
    for (const i of unmatchedCarrier) {
      if (carrier.weights[i]! <= GENERIC_WEIGHT || carrier.tokens[i]!.length === 1) denominator -= carrier.weights[i]! * GENERIC_DISCOUNT;
    }
    // Particles (AL, DE, Y) come and go between spellings on the list side too.
    for (const j of unmatchedList) if (listed.weights[j]! <= PARTICLE_WEIGHT) denominator -= listed.weights[j]! * GENERIC_DISCOUNT;
    // A sole proprietor writes a first and a last name; the list records every name the person bears. When every
    // word the carrier wrote is accounted for, the listed person's other given names cost a tenth of their weight;
    // a listed surname left out, or any name part when carrier words are left over, costs half.
    if (listIndividual) {
      const forgiven = unmatchedCarrier.length === 0 ? FULLY_EXPLAINED_DISCOUNT : 0.5;
      let leftOut = 0;
      for (const j of unmatchedList) {
        if (listed.weights[j]! <= PARTICLE_WEIGHT) continue;
        denominator -= listed.weights[j]! * (j < listed.surnames ? 0.5 : forgiven);
        if (j >= listed.surnames) leftOut += listed.weights[j]! * (1 - forgiven);
      }
      // A sole proprietor who wrote the surname and the first given name (and maybe an initial) leaves out the rest of
      // a long listed name (father's and grandfather's names): together they cost at most LEFT_OUT_CAP.
      if (leftOut > LEFT_OUT_CAP && unmatchedCarrier.length === 0 && surnameAndFirstName(listed, usedB)) denominator -= leftOut - LEFT_OUT_CAP;
    }
  }
  let score = numerator / denominator;
  const exact = unmatchedCarrier.length === 0 && unmatchedList.length === 0 && pairs.every((pair) => pair[2] === 1);
  const compactEqual = !exact && carrier.compact === listed.compact;
  if (compactEqual) score = Math.max(score, 0.97);
  // Numbers on both sides that do not pair up identically mean a different entity (PLANT 200 vs PLANT 2000).
  const numbersDisagree = carrier.numbers !== '' && listed.numbers !== '' && carrier.numbers !== listed.numbers;
  if (numbersDisagree) score = Math.min(score, 0.5);
  return {
    score: exact ? 1 : Math.min(score, 0.999), exact, pairs, unmatchedCarrier, unmatchedList, numbersDisagree, compactEqual,
    singleWord: !exact && listed.identifying.length < 2,
  };
}

/**
 * Two tokens of company names that tokenSimilarity found unrelated and still are one word: an abbreviation of a
 * trade word (BK / BANK, ENG / ENGINEERING, PETRO / PETROLEUM: the first letter, then letters of the word in order,
 * a prefix of three or more letters or consonants only), or, when both names carry the same number, one typo in a
 * word of four or more letters as written (GEAA 2480 / GEBAA 2480: folding shortened one side past the typo rules).
 */
function entityVariant(carrierToken: string, listedToken: string, numbersAgree: boolean): number {
  const [short, long] = carrierToken.length <= listedToken.length ? [carrierToken, listedToken] : [listedToken, carrierToken];
  if (short.length >= 2 && short.length <= 5 && long.length > short.length && long.length >= 4 && short[0] === long[0] && BUSINESS_WORDS.has(long) && abbreviates(short, long)) return ABBREVIATION;
  if (numbersAgree && short.length >= 4 && !DIGITS.test(short) && !DIGITS.test(long) && withinOneEdit(carrierToken, listedToken)) return NUMBERED_TYPO;
  return 0;
}

const ABBREVIATION = 0.93;
const NUMBERED_TYPO = 0.9;
const CONSONANTS = /^[B-DF-HJ-NP-TV-Z]+$/;

/** `short` is a prefix of `long` of three letters or more, or its consonants in order after a shared first letter. */
function abbreviates(short: string, long: string): boolean {
  if (short.length >= 3 && long.startsWith(short)) return true;
  if (!CONSONANTS.test(short.slice(1))) return false;
  let at = 1;
  for (let k = 1; k < short.length; k++) {
    at = long.indexOf(short[k]!, at);
    if (at < 0) return false;
    at += 1;
  }
  return true;
}

/** Every listed surname and the first listed given name (particles aside) found a partner. */
function surnameAndFirstName(listed: PreparedName, usedB: Uint8Array): boolean {
  if (listed.surnames === 0) return false;
  for (let j = 0; j < listed.tokens.length; j++) {
    if (isParticle(listed.tokens[j]!)) continue;
    if (!usedB[j]) return false;
    if (j >= listed.surnames) return true;
  }
  return false;
}

/**
 * A pair of name parts of a listed person, seen from the carrier's side: an initial that is the first letter of the
 * listed name is consistent with it (JORGE A DUQUE / DUQUE, Jorge Alirio); a carrier's word that is itself a
 * known name is not a misspelling of a different listed one (MARTIN is not MARTIC, MILAN MARTIN is not MARTIC, Milan).
 */
function personPair(carrierToken: string, listedToken: string, s: number): number {
  if (carrierToken.length === 1) return listedToken.length > 1 && listedToken[0] === carrierToken ? INITIAL_AGREES : s;
  if (s === 1) return 1;
  if (s === 0 && (Math.abs(carrierToken.length - listedToken.length) > 1 || carrierToken[0] !== listedToken[0])) return 0;
  if (personTokenShare(carrierToken) > 0 && personTokenShare(listedToken) === 0) return 0;
  // One letter dropped, added, changed or swapped in a long name (AL-QUTMH / AL-QUTMAH) is a typo.
  // In a shorter one, a vowel dropped or added (AL-TQI / AL-TAQI).
  if (s < PERSON_TYPO && withinOneEdit(carrierToken, listedToken)) {
    const longer = Math.max(carrierToken.length, listedToken.length);
    if (longer >= 6 || (longer >= 4 && carrierToken.length !== listedToken.length && vowelDropped(carrierToken, listedToken))) return PERSON_TYPO;
  }
  return s;
}

const PERSON_TYPO = 0.93;

/** The longer of two tokens one letter apart is the shorter with one vowel added. */
function vowelDropped(a: string, b: string): boolean {
  const [short, long] = a.length < b.length ? [a, b] : [b, a];
  let i = 0;
  while (i < short.length && short[i] === long[i]) i += 1;
  return /[AEIOU]/.test(long[i]!) && long.slice(i + 1) === short.slice(i);
}

const INITIAL_AGREES = 0.97;

/**
 * Pairs an unused token of `one` with two unused tokens of `other` whose concatenation it is, within a typo
 * ("BELTRANLEYVA" / "BELTRAN LEYVA", "AMIRKATRANGI" / "KATRANGI, Amir"): any two, in either order.
 */
function glue(one: PreparedName, other: PreparedName, usedOne: Uint8Array, usedOther: Uint8Array, pairs: Array<[number, number, number]>, swapped: boolean): number {
  let gained = 0;
  for (let i = 0; i < one.folded.length; i++) {
    const token = one.folded[i]!;
    if (usedOne[i] || token.length < 5) continue;
    search: for (let j = 0; j < other.folded.length; j++) {
      if (usedOther[j]) continue;
      for (let k = 0; k < other.folded.length; k++) {
        if (k === j || usedOther[k]) continue;
        if (other.folded[j]!.length + other.folded[k]!.length !== token.length) continue;
        // Two trade words glued say nothing; a name glued to its joining particle (ROYAYE / ROYAY-E, MADAIN / MADA IN) does.
        const genericJ = other.weights[j]! <= GENERIC_WEIGHT;
        const genericK = other.weights[k]! <= GENERIC_WEIGHT;
        if ((genericJ && genericK) || ((genericJ || genericK) && !(isParticle(other.tokens[genericJ ? j : k]!)))) continue;
        const joined = other.folded[j]! + other.folded[k]!;
        if (joined !== token) continue;
        const s = 0.97;
        usedOne[i] = 1; usedOther[j] = 1; usedOther[k] = 1;
        pairs.push(swapped ? [j, i, s] : [i, j, s], swapped ? [k, i, s] : [i, k, s]);
        gained += s * (one.weights[i]! + other.weights[j]! + other.weights[k]!);
        break search;
      }
    }
  }
  return gained;
}

/** Pairs an unused listed token of two to four letters with unused single letters of the carrier that spell it. */
function scatteredLetters(carrier: PreparedName, listed: PreparedName, usedA: Uint8Array, usedB: Uint8Array, pairs: Array<[number, number, number]>): number {
  let gained = 0;
  for (let j = 0; j < listed.tokens.length; j++) {
    const token = listed.tokens[j]!;
    if (usedB[j] || token.length < 2 || token.length > 4 || !/^[A-Z]+$/.test(token)) continue;
    const taken: number[] = [];
    for (const letter of token) {
      const i = carrier.tokens.findIndex((t, k) => !usedA[k] && t === letter && !taken.includes(k));
      if (i < 0) break;
      taken.push(i);
    }
    if (taken.length !== token.length) continue;
    usedB[j] = 1;
    for (const i of taken) {
      usedA[i] = 1;
      pairs.push([i, j, SCATTERED]);
      gained += SCATTERED * carrier.weights[i]!;
    }
    gained += SCATTERED * listed.weights[j]!;
  }
  return gained;
}

const SCATTERED = 0.97;

/** One short sentence on why the names scored as they did (stored with the hit, read by a reviewer). */
export function explainScore(carrier: PreparedName, listed: PreparedName, result: NameScore): string {
  const parts: string[] = [];
  if (result.exact) parts.push(`all ${result.pairs.length} tokens agree`);
  else if (result.compactEqual) parts.push('same letters, spacing differs');
  else parts.push(`${result.pairs.length} of ${carrier.tokens.length}/${listed.tokens.length} tokens aligned`);
  const differing = result.pairs.filter(([, , s]) => s < 1)
    .map(([i, j, s]) => `${carrier.tokens[i]}~${listed.tokens[j]} ${s.toFixed(2)}`);
  if (differing.length > 0) parts.push(`spelling ${differing.join(', ')}`);
  if (result.unmatchedCarrier.length > 0) parts.push(`carrier only ${result.unmatchedCarrier.map((i) => carrier.tokens[i]).join(' ')}`);
  if (result.unmatchedList.length > 0) parts.push(`list only ${result.unmatchedList.map((j) => listed.tokens[j]).join(' ')}`);
  if (result.numbersDisagree) parts.push('numbers differ');
  return parts.join('; ');
}
