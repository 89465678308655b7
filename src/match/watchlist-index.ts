// Watchlist index: OFAC and SAM names against every carrier name at ingest, with bounded work per carrier.
//
// Candidates: a list name becomes a candidate when it shares with the carrier name any of
//   - a folded token, or a token one edit away (every single-character deletion of both sides is a key, which
//     covers one substitution, insertion, deletion or adjacent transposition: HEZBOLAH / HEZBOLLAH);
//   - a token's consonant skeleton (HIZBALLAH / HEZBOLLAH, QAIDA / QAEDA);
//   - an unordered pair of tokens (so names made only of common tokens, MOHAMMAD ALI, are still found when
//     those tokens' own lists are too long to walk);
//   - the whole name with spaces removed (ALQAIDA / AL QAIDA).
// Word order plays no part. A token shared by more than MAX_POSTING list names is not walked (its pairs
// are), and at most MAX_SCORED candidates — those whose shared tokens could still reach the floor — are
// scored, so the cost per carrier stays bounded however common its words.
import type { WatchlistHit } from '../core/carrier.js';
import { compareAddresses, type PlaceOf } from './address.js';
import { BUSINESS_WORDS, COMMON_CARRIER_WORD_SHARE, COMMON_CARRIER_WORDS, personTokenShare } from './name-tables.js';
import { POSSESSIVE, splitDba } from './normalise.js';
import { classifyPrepared, COMMON_NAME_BEARERS, expectedBearers, type NameKind, UNKNOWN_TOKEN_SHARE as UNKNOWN_NAME_SHARE } from './person-name.js';
import { LEGAL_FORMS } from './name-tables.js';
import { isParticle } from './normalise.js';
import { baseWeight, explainScore, forgetTokenFacts, GENERIC_DISCOUNT, GENERIC_WEIGHT, nearGeneric, PARTICLE_WEIGHT, prepareName, scoreNames, SINGLE_WORD_CAP, type NameScore, type PreparedName, type WeightOf } from './score.js';

export type ListName = WatchlistHit['list'];

export interface ListEntry {
  list: ListName;
  entry_id: string;
  /** The name as the list writes it. */
  name: string;
  individual: boolean;
  note?: string;
  programs?: string[];
  /** Where on the list this name came from (default primary_name). */
  name_field?: 'primary_name' | 'alias' | 'cross_reference';
  uei?: string;
}

export type CarrierPlace = PlaceOf;

interface EntryRecord {
  list: ListName;
  entry_id: string;
  individual: boolean;
  note?: string;
  programs?: string[];
  uei?: string;
  places: PlaceOf[];
}

interface IndexedName {
  entry: number;
  individual: boolean;
  field: 'primary_name' | 'alias' | 'cross_reference';
  display: string;
  prepared: PreparedName | null;
}

/** Similarity below this is never stored; the rule set's review threshold decides at verdict time. */
export const DEFAULT_MATCH_FLOOR = 0.85;
/** Hits kept per carrier: enough evidence for review without bloating the stored record. */
const MAX_HITS = 3;
/** A token on more list names than this is not walked for candidates (its pairs with other tokens are). */
const MAX_POSTING = 150;
/** Candidates scored per carrier name at most (the most promising first). */
const MAX_SCORED = 24;
/** Deletion keys only for tokens this long: shorter ones are matched exactly or by skeleton. */
const MIN_DELETION_LENGTH = 4;
/** Tokens this long whose folded form differs have deletion keys of their spelling as written too. */
const RAW_KEY_LENGTH = 5;
/** Non-exact common person names lose this much: the name alone says little. */
const COMMON_NAME_PENALTY = 0.05;
const EXPLANATION_MAX = 200;
/** Carrier tokens whose candidate names are remembered. */
const TOKEN_CACHE_MAX = 300_000;
/** Extra penalty when a common person name's listed addresses all disagree with the carrier's. */
const COMMON_NAME_DISAGREEMENT = 0.05;
/** Highest score of a non-exact match on a list name whose one identifying word is an ordinary carrier word. */
const COMMON_WORD_CAP = 0.9;
/** Highest score of an entity match that needed a spelling variant (below the default hard-stop bar 0.95). */
const FUZZY_ENTITY_CAP = 0.949;
/** A one-word list name spelt differently, with an agreeing number (GRUPO CONROL 2004): a review at most. */
const FUZZY_WITH_NUMBER_CAP = 0.935;
/** A listed name at least this long (letters, spaces aside) is recognised written together or apart. */
const COMPACT_MIN_LETTERS = 8;
/** The whole listed name inside a longer carrier name: a review. */
const CONTAINED_SCORE = 0.94;
/** ... when the carrier's own identifying words weigh at most this many times the listed name's. */
const CONTAINED_EXTRA_RATIO = 2;
/** A listed name holds enough information to be recognised inside a longer one (HILAL TRAVEL AGENCY: 1.4). */
const CONTAINABLE_INFORMATION = 1.2;
/** ... or one word this long and rare. */
const LONE_CONTAINABLE_LENGTH = 7;
/** A listed person's name without some of its parts inside a business name (ARTEM MALYSHEV TRANSPORT): a review
 * (an individual's name-only match never is more), also after a listed-abroad adjustment. */
const PARTIAL_PERSON_SCORE = 0.965;
/** Ordinary carrier words (NORTH, FIRST) a carrier may add around a whole listed name that still make a review. */
const MAX_ORDINARY_ADDED = 2;
/** Entity matches this far below the floor are still checked for a whole listed name inside the carrier's. */
const LOW_CONTAINED = 0.3;
/** Information of a number token (an agreeing number is evidence, not identity). */
const NUMBER_INFORMATION = 0.5;
/** Token weight below which a word is common (in the lists, among people or carrier names). */
const RARE_WEIGHT = 0.85;
/** Share of people at which a name word counts as common (the third tier of the name tables). */
const COMMON_PERSON_TOKEN = 0.0008;

/** An apostrophe between two letters of one word (MADA'IN). */
const INNER_APOSTROPHE = /([A-Za-z])['`\u2019]([A-Za-z])/g;

/** Weights do not matter for counting document frequency. */
const UNIT_WEIGHT: WeightOf = () => 1;

function deletions(token: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < token.length; i++) out.push(token.slice(0, i) + token.slice(i + 1));
  return out;
}

/** Tokens that identify (not particles, trade words or initials); all tokens when a name has no other. */
function significant(name: PreparedName): number[] {
  return name.identifying.length > 0 ? name.identifying : name.tokens.map((_, i) => i);
}

/** Slots per list name in the flat prefix-sum array: a name has at most 10 tokens (score.ts MAX_TOKENS), plus the 0. */
const PREFIX_STRIDE = 11;

/** Upper bound of a candidate's score (see candidates()). */
function scoreBound(prefix: Float64Array, base: number, tokens: number, shared: number, count: number, carrierDenominator: number, individual: boolean): number {
  const listTotal = prefix[base + tokens]!;
  const unmatchedList = prefix[base + Math.max(0, tokens - count)]!;
  const discount = individual ? unmatchedList / 2 : 0;
  return (shared + listTotal - unmatchedList) / (carrierDenominator + listTotal - discount);
}

/** One step that fills an index; replayed in order, inputs() build the same index elsewhere (a worker thread). */
export type IndexInput =
  | { add: ListEntry }
  | { place: { list: ListName; entryId: string; where: PlaceOf } }
  | { asOf: { list: ListName; asOf: string } };

/** What an index was built from: plain data, so it can be posted to a worker thread. */
export interface IndexInputs {
  floor: number;
  inputs: IndexInput[];
}

export class WatchlistIndex {
  private readonly entries: EntryRecord[] = [];
  private readonly entryIds = new Map<string, number>();
  private readonly names: IndexedName[] = [];
  private readonly seenNames = new Set<string>();
  private readonly asOf = new Map<ListName, string>();
  private built = false;
  // Built by finalise():
  private documentFrequency = new Map<string, number>();
  private tokenIds = new Map<string, number>();
  private tokenNames: number[][] = [];
  /** Folded token and each of its one-deletion variants → token ids (symmetric deletion: one edit apart meet). */
  private tokenKeys = new Map<string, number[]>();
  private skeletonKeys = new Map<string, number[]>();
  private nameKeys = new Map<string, number[]>();
  private namePostings = new Map<string, Int32Array>();
  /** Per list name, prefix sums of its token weights in ascending order: [0, lightest, lightest two, ...]. */
  private lightestPrefix = new Float64Array(0);
  /** Per list name, how many tokens it has (0: nothing left after normalisation). */
  private tokenCount = new Uint8Array(0);
  private tokenCache = new Map<string, Int32Array>();
  /** Carrier tokens equal to (or one edit from) a list token too common to walk: they may pair all the same. */
  private unwalked = new Set<string>();
  private mask = new Int32Array(0);
  private individual = new Uint8Array(0);
  /** Per list name, how many of its tokens are trade words, legal forms or particles. */
  private genericTokens = new Uint8Array(0);
  /** Per list name, 1 when it can be recognised inside a longer carrier name (containableName()). */
  private containable = new Uint8Array(0);
  /** Per list name, weakListName(): 0 none, 1 ordinary, 2 short. */
  private weakness = new Uint8Array(0);
  /** Per list name, 1 when its only identifying words are letters or two-letter acronyms (B S COMPANY, IS BANK). */
  private lettered = new Uint8Array(0);
  /** Per list name, how many of its tokens identify (the carrier must share that many to contain it). */
  private identifyingCount = new Uint8Array(0);
  private stamp = new Int32Array(0);
  private query = 0;

  /** Work done so far (for the benchmark): names queried, candidates touched, candidates scored. */
  readonly work = { queries: 0, touched: 0, scored: 0 };

  constructor(readonly floor = DEFAULT_MATCH_FLOOR) {}

  get size(): number {
    return this.names.length;
  }

  /**
   * Steps that fill an index like this one, read back from what it holds: every indexed name in order, the variants
   * add() derived included (an entry's first name creates it, as its first add() did), then the listed places and
   * the lists' as-of. WatchlistIndex.fromInputs() builds an index that matches alike.
   */
  inputs(): IndexInputs {
    const inputs: IndexInput[] = this.names.map((name) => {
      const entry = this.entries[name.entry]!;
      return { add: {
        list: entry.list, entry_id: entry.entry_id, name: name.display, individual: name.individual, note: entry.note,
        programs: entry.programs, name_field: name.field, uei: entry.uei,
      } };
    });
    for (const entry of this.entries) {
      for (const where of entry.places) inputs.push({ place: { list: entry.list, entryId: entry.entry_id, where } });
    }
    for (const [list, asOf] of this.asOf) inputs.push({ asOf: { list, asOf } });
    return { floor: this.floor, inputs };
  }

  static fromInputs({ floor, inputs }: IndexInputs): WatchlistIndex {
    const index = new WatchlistIndex(floor);
    for (const input of inputs) {
      // Indexed names as they are: their variants are among the inputs already.
      if ('add' in input) index.addName(index.entryOf(input.add), input.add, input.add.name);
      else if ('place' in input) index.addPlace(input.place.list, input.place.entryId, input.place.where);
      else index.setListAsOf(input.asOf.list, input.asOf.asOf);
    }
    return index;
  }

  add(entry: ListEntry): void {
    const index = this.entryOf(entry);
    this.addName(index, entry, entry.name);
    // An apostrophe inside a word (MADA'IN, MA'RUF) is written closed up or as a space: both forms are indexed.
    const split = entry.name.replace(INNER_APOSTROPHE, '$1 $2');
    if (split !== entry.name) this.addName(index, entry, split);
    // A possessive (PEOPLE'S) is read as its word (PEOPLE) on both sides; a carrier may also write it closed up
    // (PEOPLES): that form is indexed too.
    const upper = entry.name.toUpperCase();
    const closed = upper.replace(POSSESSIVE, 'S');
    if (closed !== upper) this.addName(index, entry, closed);
  }

  /** The entry's index, created from `entry` the first time it is named. */
  private entryOf(entry: ListEntry): number {
    const key = `${entry.list}:${entry.entry_id}`;
    let index = this.entryIds.get(key);
    if (index === undefined) {
      index = this.entries.length;
      this.entries.push({
        list: entry.list, entry_id: entry.entry_id, individual: entry.individual, note: entry.note,
        programs: entry.programs, uei: entry.uei, places: [],
      });
      this.entryIds.set(key, index);
    }
    return index;
  }

  private addName(index: number, entry: ListEntry, display: string): void {
    const dedupe = `${index}|${display.toUpperCase().replace(POSSESSIVE, '').replace(/['`\u2019]/g, '').replace(/[^A-Z0-9]+/g, ' ').trim()}`;
    if (this.seenNames.has(dedupe)) return;
    this.seenNames.add(dedupe);
    this.names.push({ entry: index, individual: entry.individual, field: entry.name_field ?? 'primary_name', display, prepared: null });
    this.built = false;
  }

  /** A listed address (OFAC add.csv, SAM address columns) of an entry already added; unknown entries are ignored. */
  addPlace(list: ListName, entryId: string, where: PlaceOf): boolean {
    const index = this.entryIds.get(`${list}:${entryId}`);
    if (index === undefined) return false;
    const places = this.entries[index]!.places;
    if (!places.some((p) => p.country === where.country && p.state === where.state && p.city === where.city && p.zip === where.zip)) places.push(where);
    return true;
  }

  setListAsOf(list: ListName, asOf: string | null | undefined): void {
    if (asOf) this.asOf.set(list, asOf.slice(0, 10));
  }

  /** Weight of a token: particles and trade words little, then the rarer across lists and people, the more. */
  readonly weightOf: WeightOf = (folded, raw) => {
    const cached = this.weightCache.get(raw);
    if (cached !== undefined) return cached;
    let weight = baseWeight(raw);
    if (weight === null) {
      if (/^\d+$/.test(folded)) weight = 1;
      else {
        const listShare = (this.documentFrequency.get(folded) ?? 0) / Math.max(1, this.names.length);
        const share = Math.max(listShare, personTokenShare(raw), COMMON_CARRIER_WORDS.has(raw) ? COMMON_CARRIER_WORD_SHARE : 0);
        weight = 1 / (1 + Math.log10(1 + 1000 * share));
      }
    }
    if (this.weightCache.size >= 200_000) this.weightCache.clear();
    this.weightCache.set(raw, weight);
    return weight;
  };

  private weightCache = new Map<string, number>();

  private finalise(): void {
    if (this.built) return;
    // Document frequency first (weights depend on it), then prepared names and keys.
    const df = new Map<string, number>();
    const prepared0 = this.names.map((name) => prepareName(name.display, UNIT_WEIGHT));
    for (const p of prepared0) {
      if (!p) continue;
      for (const token of new Set(p.folded)) df.set(token, (df.get(token) ?? 0) + 1);
    }
    this.documentFrequency = df;
    this.weightCache = new Map();
    forgetTokenFacts(this.weightOf);
    this.tokenIds = new Map();
    this.tokenNames = [];
    this.tokenKeys = new Map();
    this.skeletonKeys = new Map();
    this.nameKeys = new Map();
    // One flat array, PREFIX_STRIDE slots per list name: the candidate loop reads it without chasing objects.
    this.lightestPrefix = new Float64Array(this.names.length * PREFIX_STRIDE);
    this.tokenCount = new Uint8Array(this.names.length);
    this.tokenCache = new Map();
    this.unwalked = new Set();
    const pushKey = (map: Map<string, number[]>, key: string, id: number) => {
      const list = map.get(key);
      if (!list) map.set(key, [id]);
      else if (list[list.length - 1] !== id) list.push(id);
    };
    const rawKeyed = new Set<string>();
    this.names.forEach((name, id) => {
      const prepared = prepareName(name.display, this.weightOf);
      name.prepared = prepared;
      if (!prepared) return;
      const keyTokens = significant(prepared);
      for (const i of keyTokens) {
        const folded = prepared.folded[i]!;
        let tokenId = this.tokenIds.get(folded);
        if (tokenId === undefined) {
          tokenId = this.tokenNames.length;
          this.tokenIds.set(folded, tokenId);
          this.tokenNames.push([]);
          pushKey(this.tokenKeys, folded, tokenId);
          if (folded.length >= MIN_DELETION_LENGTH && !/^\d+$/.test(folded)) for (const d of deletions(folded)) pushKey(this.tokenKeys, d, tokenId);
          const skel = prepared.skeletons[i]!;
          if (skel.length >= 3 && !/^\d/.test(skel)) pushKey(this.skeletonKeys, skel, tokenId);
        }
        // Folding can move a typo out of one-edit reach (SHOOKHI folds to SHOHI, SHOKOHI stays): the spelling as
        // written has deletion keys of its own, in the same key space (candidates only; scoring decides).
        const raw = prepared.tokens[i]!;
        if (raw !== folded && raw.length >= RAW_KEY_LENGTH && !rawKeyed.has(raw)) {
          rawKeyed.add(raw);
          for (const d of [raw, ...deletions(raw)]) pushKey(this.tokenKeys, d, tokenId);
        }
        const postings = this.tokenNames[tokenId]!;
        if (postings[postings.length - 1] !== id) postings.push(id);
      }
      for (let a = 0; a < keyTokens.length; a++) {
        for (let b = a + 1; b < keyTokens.length; b++) pushKey(this.nameKeys, `p${pairKey(prepared.folded[keyTokens[a]!]!, prepared.folded[keyTokens[b]!]!)}`, id);
      }
      pushKey(this.nameKeys, `c${prepared.compact}`, id);
      // A short acronym (T.E.G.) is also written letter by letter, in any order (E G T): keyed by its sorted letters.
      if (!name.individual) {
        for (const i of prepared.identifying) {
          const token = prepared.tokens[i]!;
          if (ACRONYM.test(token)) pushKey(this.nameKeys, `a${sortedLetters(token)}`, id);
        }
      }
      // "KATRANGI, Amir" is also written AMIRKATRANGI: the reordered compact form is a key too.
      const comma = name.display.indexOf(',');
      if (name.individual && comma > 0) {
        const reordered = prepareName(`${name.display.slice(comma + 1)} ${name.display.slice(0, comma)}`, this.weightOf);
        if (reordered) pushKey(this.nameKeys, `c${reordered.compact}`, id);
      }
      const ascending = Float64Array.from(prepared.weights).sort();
      const base = id * PREFIX_STRIDE;
      for (let k = 0; k < ascending.length; k++) this.lightestPrefix[base + k + 1] = this.lightestPrefix[base + k]! + ascending[k]!;
      this.tokenCount[id] = ascending.length;
    });
    // Typed postings: every list the hot loop walks is an Int32Array (one array shape for the JIT).
    this.namePostings = new Map([...this.nameKeys].map(([key, ids]) => [key, Int32Array.from(ids)]));
    this.nameKeys = new Map();
    this.mask = new Int32Array(this.names.length);
    this.individual = Uint8Array.from(this.names, (name) => (name.individual ? 1 : 0));
    this.genericTokens = Uint8Array.from(this.names, (name) => name.prepared?.weights.filter((w) => w <= GENERIC_WEIGHT).length ?? 0);
    this.weakness = Uint8Array.from(this.names, (name) => {
      const weak = name.prepared ? weakListName(name.prepared) : null;
      return weak === null ? 0 : weak === 'ordinary' ? 1 : 2;
    });
    this.containable = Uint8Array.from(this.names, (name) => (name.prepared && !name.individual && containableName(name.prepared) ? 1 : 0));
    this.identifyingCount = Uint8Array.from(this.names, (name) => Math.min(255, name.prepared?.identifying.length ?? 0));
    this.lettered = Uint8Array.from(this.names, (name) => (name.prepared && letteredName(name.prepared) ? 1 : 0));
    this.stamp = new Int32Array(this.names.length);
    this.query = 0;
    this.built = true;
  }

  /**
   * Hits for a carrier's names (legal, DBA), best first, at most MAX_HITS. `place` is the carrier's census
   * address: agreement with a listed address raises a score, a listed party only known abroad lowers it.
   */
  match(carrierNames: Array<string | null>, place: CarrierPlace | null = null): WatchlistHit[] {
    this.finalise();
    const best = new Map<number, WatchlistHit>();
    const seen = new Set<string>();
    carrierNames.forEach((carrierName, position) => {
      if (!carrierName) return;
      const field = position === 0 ? 'legal_name' : 'dba_name';
      for (const part of splitDba(carrierName)) {
        const prepared = prepareName(part, this.weightOf);
        if (!prepared || seen.has(prepared.compact)) continue;
        seen.add(prepared.compact);
        for (const hit of this.matchOne(prepared, carrierName, field, place)) {
          const entry = this.entryIds.get(`${hit.list}:${hit.entry_id}`)!;
          const previous = best.get(entry);
          if (!previous || previous.score < hit.score) best.set(entry, hit);
        }
      }
    });
    return [...best.values()]
      .sort((a, b) => decisiveRank(b) - decisiveRank(a) || b.score - a.score)
      .slice(0, MAX_HITS);
  }

  private matchOne(carrier: PreparedName, carrierName: string, field: string, place: CarrierPlace | null): WatchlistHit[] {
    const kind: NameKind = classifyPrepared(carrier);
    const candidates = this.candidates(carrier);
    const hits: WatchlistHit[] = [];
    for (const id of candidates) {
      const name = this.names[id]!;
      const listed = name.prepared!;
      // Entity-type gating: a person's name against listed people, and against an organisation only when it is that
      // organisation's whole name word for word (ALMACEN JUNIOR reads as a person's name and is a listed company); a
      // business name against organisations, and against people only when it contains a listed person's whole
      // (uncommon) name.
      const personAgainstOrganisation = kind === 'person' && !name.individual;
      if (personAgainstOrganisation && carrier.tokens.length !== listed.tokens.length) continue;
      const result = scoreNames(carrier, listed, name.individual);
      if (personAgainstOrganisation && !result.exact) continue;
      const low = result.score < this.floor - 0.1;
      // Low scores are kept for the containment rules only (an entity's whole name inside a longer carrier name).
      if (low && (name.individual ? kind !== 'business' : this.containable[id] !== 1 && result.score < this.floor - LOW_CONTAINED)) continue;
      const evidence = name.individual ? null : entityEvidence(carrier, listed, result);
      // Inside a longer name, the listed words must be the carrier's words as written (or folded alike): a near
      // spelling among other words (TAMAYOZ in HUMBERTO GARCIA TAMAYO, AUCTION in SJD AUCTIONS) is another word.
      const contained = evidence !== null && this.containable[id] === 1 && evidence.coveredAll && !evidence.spelledApart && evidence.exactRare > 0
        && evidence.carrierExtra <= CONTAINED_EXTRA_RATIO * evidence.listInformation;
      const weak = this.weakness[id] === 0 ? null : this.weakness[id] === 1 ? 'ordinary' : 'short';
      // Every word of the listed name, and around it only trade words, legal forms, letters and at most two ordinary
      // carrier words (NORTH ZTE CORPORATION TRANSPORTATION, FIRST IS BANK AO LOGISTICS). Not for list names made of
      // ordinary words (GOLDEN STAR CO).
      const wholeAmongOrdinary = evidence !== null && evidence.coveredWhole && evidence.otherAdded === 0
        && evidence.ordinaryAdded <= MAX_ORDINARY_ADDED && (weak !== 'ordinary' || this.lettered[id] === 1);
      if (low && !contained && !wholeAmongOrdinary && !(name.individual && kind === 'business')) continue;
      let score = result.score;
      const notes: string[] = [];
      let common = false;
      const entry = this.entries[name.entry]!;
      const address = compareAddresses(entry.places, place, name.individual);
      if (name.individual) {
        common = commonName(carrier, listed, result.pairs);
        if (kind === 'business') {
          // The listed person's name inside a business name, every part it shares identical, nothing else but trade
          // words ("HECTOR BELTRAN LEYVA TRUCKING LLC", "ARTEM MALYSHEV TRANSPORT" for MALYSHEV, Artem Andreyevich),
          // at least two parts, every listed surname among them, and not a common name.
          const listMissing = result.unmatchedList.filter((j) => baseWeight(listed.tokens[j]!) === null).length;
          const surnameMissing = result.unmatchedList.some((j) => j < listed.surnames && baseWeight(listed.tokens[j]!) === null);
          const carrierExtra = result.unmatchedCarrier.some((i) => baseWeight(carrier.tokens[i]!) === null);
          const identical = result.pairs.filter(([i, , sim]) => sim === 1 && baseWeight(carrier.tokens[i]!) === null).length;
          if (carrierExtra || common || surnameMissing || identical < 2 || result.pairs.some(([i, , sim]) => sim < 1 && carrier.tokens[i]!.length > 1)) continue;
          score = listMissing > 0 ? Math.max(PARTIAL_PERSON_SCORE, containmentScore(carrier, listed, result.pairs)) : containmentScore(carrier, listed, result.pairs);
          notes.push(listMissing > 0 ? `listed person's name inside a business name (${listMissing} listed name part${listMissing > 1 ? 's' : ''} absent)` : 'listed person\'s full name inside a business name');
        } else if (!result.pairs.some(([i, , sim]) => sim === 1 && baseWeight(carrier.tokens[i]!) === null)) {
          // No part of the name identical (AHMADI SAMI / AL-SHAMI, Ahmad): too loose for a person.
          score = Math.min(score, COMMON_WORD_CAP);
          notes.push('no name part identical');
        } else if (common && !result.exact) {
          // A spelling variant of a common name (MUHAMMAD OSMAN / OSMAN, Mohamed) is no evidence.
          score = Math.min(score - COMMON_NAME_PENALTY, COMMON_WORD_CAP);
          notes.push('common name, spelt differently');
        } else if (common && !address.agreed.includes('country')) {
          // A common name and nothing else: thousands of owner-operators bear it. Only a listed address in the
          // carrier's own country makes it worth a reviewer's time.
          score = Math.min(score, COMMON_WORD_CAP);
          notes.push('common name, no listed address in the carrier\'s country');
        } else if (common) notes.push('common name');
      }
      if (evidence) {
        if (weak === 'ordinary' || evidence.listIdentifying === 0) {
          // Only ordinary words of carrier names, common person-name words or initials (TIMBER CORPORATION, RAMIREZ Y
          // CIA., B S COMPANY): a review when the names agree word for word (particles and legal forms aside), else nothing.
          score = Math.min(score, evidence.exactCore ? SINGLE_WORD_CAP : COMMON_WORD_CAP);
        } else if (evidence.listIdentifying === 1) {
          // One identifying word (HIZBALLAH, SYRIATEL, 7 KARNES): identical, it is a review at most (a hard stop only
          // when the whole name is identical); a spelling variant is nothing unless it is another romanisation of the
          // word or a number agrees too (ZETA is not LOS ZETAS, MAKINA is not MAKIN).
          if (evidence.exactIdentifying === 1) {
            if (!result.exact) score = Math.min(score, SINGLE_WORD_CAP);
          } else if (evidence.transliterated === 1) {
            // Another romanisation of the same word (vowels only, over a long consonant frame): a review.
            score = Math.min(score, SINGLE_WORD_CAP);
            notes.push('one word romanised differently');
          } else {
            score = Math.min(score, evidence.numbersAgree ? FUZZY_WITH_NUMBER_CAP : COMMON_WORD_CAP);
            notes.push(evidence.numbersAgree ? 'one word spelt differently, number agrees' : 'one word spelt differently');
          }
        } else if (evidence.exactIdentifying === 0 || (evidence.exactRare === 0 && evidence.exactIdentifying < 2)) {
          // Spelling variants only, or one common word identical and the rest spelt differently (ABDI RAMIREZ /
          // RAMIREZ ABADIA): not enough information agrees for a review.
          score = Math.min(score, COMMON_WORD_CAP);
          notes.push('too little of the name agrees exactly');
        } else if (evidence.fuzzyIdentifying > 0) {
          // A spelling variant of an identifying word (WALTER / WATER HILL CORP.): a review, not a block.
          score = Math.min(score, FUZZY_ENTITY_CAP);
        }
        if (contained && score < CONTAINED_SCORE) {
          // The whole listed name, word for word, inside a longer carrier name (NORTH HILAL TRAVEL AGENCY CARRIERS
          // LLC): a review.
          score = CONTAINED_SCORE;
          notes.push('whole listed name inside the carrier name');
        } else if (wholeAmongOrdinary && score < CONTAINED_SCORE) {
          // The whole listed name among trade words and a few ordinary ones: a review.
          score = CONTAINED_SCORE;
          notes.push('whole listed name, only ordinary and trade words added');
        } else if (result.compactEqual && weak === null && listed.compact.length >= COMPACT_MIN_LETTERS && score < CONTAINED_SCORE) {
          // The listed name's letters in order with only the spaces moved (ESAILSHIPPING / ESAIL SHIPPING, SYRI ATEL):
          // the same name written together or apart, not a spelling variant: a review (the caps' notes no longer apply).
          score = CONTAINED_SCORE;
          notes.splice(0);
        }
      }
      // A common name listed only elsewhere: the disagreement says more when the name says little.
      score += address.delta < 0 && common ? address.delta - COMMON_NAME_DISAGREEMENT : address.delta;
      if (address.note) notes.push(address.note);
      score = Math.max(0, Math.min(1, score));
      if (score < this.floor) continue;
      hits.push(this.toHit(entry, name, carrierName, field, Math.floor(score * 1000) / 1000, result.exact, address.agreed, address.confirmed, common,
        [explainScore(carrier, listed, result), ...notes].join('; ')));
    }
    return hits;
  }

  /**
   * The list names a carrier token leads to: the names holding any list token equal to it, one edit away, or of
   * the same skeleton (tokens on more than MAX_POSTING names left out). Carrier names reuse a small vocabulary,
   * so the answer per token is remembered (bounded).
   */
  private namesForToken(raw: string, folded: string, skel: string): Int32Array {
    const cached = this.tokenCache.get(raw);
    if (cached) return cached;
    const tokenIds = new Set<number>();
    const add = (ids: number[] | undefined) => { if (ids) for (const id of ids) tokenIds.add(id); };
    add(this.tokenKeys.get(folded));
    if (raw !== folded && raw.length >= RAW_KEY_LENGTH) for (const d of [raw, ...deletions(raw)]) add(this.tokenKeys.get(d));
    if (folded.length >= MIN_DELETION_LENGTH && !/^\d+$/.test(folded)) for (const d of deletions(folded)) add(this.tokenKeys.get(d));
    if (skel.length >= 3 && !/^\d/.test(skel)) add(this.skeletonKeys.get(skel));
    const names = new Set<number>();
    for (const tokenId of tokenIds) {
      const postings = this.tokenNames[tokenId]!;
      if (postings.length > MAX_POSTING) { this.unwalked.add(folded); continue; }
      for (const id of postings) names.add(id);
    }
    const result = Int32Array.from(names);
    if (this.tokenCache.size >= TOKEN_CACHE_MAX) this.tokenCache.clear();
    this.tokenCache.set(raw, result);
    return result;
  }

  /** Candidate list names for one carrier name, most promising first, at most MAX_SCORED. */
  private candidates(carrier: PreparedName): number[] {
    this.query += 1;
    const q = this.query;
    const touched: number[] = [];
    const keyTokens = significant(carrier);
    const { stamp, mask, lightestPrefix: prefix } = this;
    const weights = carrier.weights;
    // Each candidate collects a bit per carrier token it shares (bit 30: the whole name without spaces).
    const touchAll = (ids: Int32Array, bits: number) => {
      for (let k = 0; k < ids.length; k++) {
        const nameId = ids[k]!;
        if (stamp[nameId] !== q) {
          stamp[nameId] = q;
          mask[nameId] = 0;
          touched.push(nameId);
        }
        mask[nameId]! |= bits;
      }
    };
    for (const i of keyTokens) {
      if (i >= 30) break;
      touchAll(this.namesForToken(carrier.tokens[i]!, carrier.folded[i]!, carrier.skeletons[i]!), 1 << i);
    }
    for (let a = 0; a < keyTokens.length; a++) {
      for (let b = a + 1; b < keyTokens.length; b++) {
        const ia = keyTokens[a]!;
        const ib = keyTokens[b]!;
        if (ia >= 30 || ib >= 30) continue;
        const ids = this.namePostings.get(`p${pairKey(carrier.folded[ia]!, carrier.folded[ib]!)}`);
        if (ids) touchAll(ids, (1 << ia) | (1 << ib));
      }
    }
    const compact = this.namePostings.get(`c${carrier.compact}`);
    if (compact) touchAll(compact, ((1 << Math.min(30, weights.length)) - 1) | (1 << 30));
    if (carrier.letters >= 2) {
      for (const [letters, bits] of letterGroups(carrier)) {
        const ids = this.namePostings.get(`a${letters}`);
        if (ids) touchAll(ids, bits);
      }
    }

    // Upper bound of each candidate's score from the carrier tokens it shares; drop those that cannot reach the
    // floor. Carrier trade words and particles may pair with the list's, so they count as shareable; at most as
    // many list tokens as shareable carrier tokens can pair, so the list's lightest others are surely unmatched.
    const ranked: Array<[number, number]> = [];
    let genericWeight = 0;
    let genericCount = 0;
    // A carrier's unmatched single letters cost like trade words (see scoreNames), but pair with nothing by key.
    let letterWeight = 0;
    for (let i = 0; i < weights.length; i++) {
      if (weights[i]! <= GENERIC_WEIGHT) { genericWeight += weights[i]!; genericCount += 1; }
      else if (carrier.tokens[i]!.length === 1) letterWeight += weights[i]!;
    }
    const carrierDenominator = carrier.total - (genericWeight + letterWeight) * GENERIC_DISCOUNT;
    const cut = this.floor - 0.03 - 1e-9;
    // Per carrier token, once: may it pair with a list trade word (1), with a list token too common to walk (2), or
    // as two glued list tokens (3)?
    const loose = new Uint8Array(weights.length);
    for (let i = 0; i < weights.length && i < 30; i++) {
      const folded = carrier.folded[i]!;
      loose[i] = nearGeneric(folded) ? 1 : this.unwalked.has(folded) ? 2 : folded.length >= 8 ? 3 : 0;
    }
    for (const id of touched) {
      const tokens = this.tokenCount[id]!;
      if (tokens === 0) continue;
      const base = id * PREFIX_STRIDE;
      // Identifying-token weight only: generic tokens were counted once above.
      // Carrier trade words pair only with the list's own trade words (they must be near-identical).
      let listGeneric = this.genericTokens[id]!;
      let shared = listGeneric > 0 ? genericWeight : 0;
      let count = Math.min(genericCount, listGeneric);
      listGeneric -= count;
      const bits = mask[id]!;
      let looseShared = 0;
      let looseCount = 0;
      for (let i = 0; i < weights.length && i < 30; i++) {
        if (weights[i]! <= GENERIC_WEIGHT) continue;
        if (bits & (1 << i)) { shared += weights[i]!; count += 1; }
        // Not shared by key, yet it may pair with a list trade word (MARITIMI / MARITIME) or be two list tokens
        // glued together (BELTRANLEYVA): counted for the bound that filters, not for the rank.
        else if (loose[i] === 1 && listGeneric > 0) { looseShared += weights[i]!; looseCount += 1; listGeneric -= 1; }
        else if (loose[i] === 2) { looseShared += weights[i]!; looseCount += 1; }
        else if (loose[i] === 3) { looseShared += weights[i]!; looseCount += 2; }
      }
      const compactHit = (bits & (1 << 30)) !== 0;
      // A listed name the carrier may hold whole inside a longer name (NORTH HILAL TRAVEL AGENCY CARRIERS) is kept
      // whatever the carrier adds, when the carrier shares as many identifying tokens as the listed name has.
      const identifyingShared = count - Math.min(genericCount, this.genericTokens[id]!);
      const individual = this.individual[id] === 1;
      // Also any entity name whose identifying words the carrier all shares: ordinary words around it may still make
      // a review (see matchOne).
      const mayContain = individual
        ? identifyingShared >= 2
        : identifyingShared >= Math.max(1, this.identifyingCount[id]!);
      const bound = scoreBound(prefix, base, tokens, shared, count, carrierDenominator, individual);
      if (!compactHit && !mayContain && scoreBound(prefix, base, tokens, shared + looseShared, count + looseCount, carrierDenominator, individual) < cut) continue;
      ranked.push([id, compactHit ? 2 : mayContain && this.containable[id] === 1 ? Math.max(bound, CONTAINED_SCORE) : bound]);
    }
    ranked.sort((x, y) => y[1] - x[1]);
    this.work.queries += 1;
    this.work.touched += touched.length;
    this.work.scored += Math.min(ranked.length, MAX_SCORED);
    return ranked.slice(0, MAX_SCORED).map(([id]) => id);
  }

  private toHit(
    entry: EntryRecord, name: IndexedName, carrierName: string, field: string, score: number, exact: boolean, addressAgreed: string[],
    confirmed: boolean, common: boolean, explanation: string,
  ): WatchlistHit {
    const hit: WatchlistHit = {
      list: entry.list, entry_id: entry.entry_id, matched_name: name.display, carrier_name: carrierName, score, exact,
      entity_type: name.individual ? 'individual' : 'entity',
      agreed: [field, name.field, ...addressAgreed],
      explanation: explanation.slice(0, EXPLANATION_MAX),
    };
    if (entry.note) hit.note = entry.note;
    if (entry.programs && entry.programs.length > 0) hit.programs = entry.programs;
    if (confirmed) hit.confirmed = true;
    if (common) hit.common_name = true;
    if (entry.uei) hit.uei = entry.uei;
    const asOf = this.asOf.get(entry.list);
    if (asOf) hit.list_as_of = asOf;
    return hit;
  }
}

/**
 * How weak a list name is as evidence: 'ordinary' when it has no identifying word (initials only: "B S
 * COMPANY"), only a two-letter acronym ("KB LINES LIMITED"), or identifying words that are all ordinary carrier
 * words or common person-name words (TIMBER CORPORATION, RAMIREZ Y CIA. LTDA.); 'short' when its one identifying
 * word has fewer than five letters (a one-letter difference is then another word); null otherwise.
 */
function weakListName(listed: PreparedName): 'ordinary' | 'short' | null {
  const identifying = listed.tokens.filter((token) => baseWeight(token) === null);
  // No identifying word, or only a two-letter acronym (KB LINES LIMITED): initials say almost nothing.
  if (identifying.length === 0 || (identifying.length === 1 && identifying[0]!.length <= 2)) return 'ordinary';
  if (identifying.every((token) => COMMON_CARRIER_WORDS.has(token) || personTokenShare(token) >= COMMON_PERSON_TOKEN)) return 'ordinary';
  if (identifying.length === 1 && identifying[0]!.length < 5) return 'short';
  return null;
}

/**
 * A person's name borne by many carrier owners (expectedBearers() ≥ COMMON_NAME_BEARERS), each matched part counted
 * at the commoner of its two spellings: ISMAEL ALI is as common as ISMAIL ALI.
 */
function commonName(carrier: PreparedName, listed: PreparedName, pairs: Array<[number, number, number]>): boolean {
  let product = expectedBearers(carrier, []);
  for (const [i, j] of pairs) {
    const token = carrier.tokens[i]!;
    if (token.length === 1 || isParticle(token)) continue;
    product *= Math.max(personTokenShare(token), personTokenShare(listed.tokens[j]!)) || UNKNOWN_NAME_SHARE;
  }
  return product >= COMMON_NAME_BEARERS;
}

/** What a token tells about identity, from how common it is among people and carrier names (1: unheard of). */
function information(token: string): number {
  let value = INFORMATION.get(token);
  if (value === undefined) {
    value = informationUncached(token);
    if (INFORMATION.size >= 200_000) INFORMATION.clear();
    INFORMATION.set(token, value);
  }
  return value;
}

const INFORMATION = new Map<string, number>();

function informationUncached(token: string): number {
  if (isNumber(token)) return NUMBER_INFORMATION;
  const base = baseWeight(token);
  if (base !== null) return base === PARTICLE_WEIGHT ? 0 : base;
  if (token.length <= 2) return INITIAL_INFORMATION;
  const share = Math.max(personTokenShare(token), COMMON_CARRIER_WORDS.has(token) ? COMMON_CARRIER_WORD_SHARE : 0);
  return 1 / (1 + Math.log10(1 + 1000 * share));
}

const INITIAL_INFORMATION = 0.3;
const isNumber = (token: string) => /^\d+$/.test(token);
/**
 * A list token a carrier may leave out without the name changing: particles and legal forms. A listed name's single
 * letters are part of it (D S SUPERMARKET is not SUPERMARKET).
 */
const optionalToken = (token: string) => isParticle(token) || LEGAL_FORMS.has(token);

/** How much of an entity's listed name the carrier name agrees with, and how (see matchOne). */
interface Evidence {
  /** Identifying (not generic, particle, number or initial) tokens of the listed name. */
  listIdentifying: number;
  exactIdentifying: number;
  fuzzyIdentifying: number;
  /** Fuzzy identifying pairs that differ only in vowels over a frame of four or more consonants (HEZBOLLAH / HIZBALLAH). */
  transliterated: number;
  /** Identifying list tokens matched identically whose word is rare among people and carrier names. */
  exactRare: number;
  /** Every listed token but particles, legal forms and single letters has an identical partner. */
  coveredAll: boolean;
  /** Some listed token counted identical is spelt differently on the carrier's side (AUCTIONS / AUCTION). */
  spelledApart: boolean;
  /** coveredAll, and the carrier adds nothing but particles and legal forms. */
  exactCore: boolean;
  /** Information of the listed name's tokens (see information()). */
  listInformation: number;
  /** Information of the carrier's own identifying words that found no partner. */
  carrierExtra: number;
  /** Both names hold numbers and they are the same. */
  numbersAgree: boolean;
  /** Every listed token but particles has an identical partner (letters spelt one by one count). */
  coveredWhole: boolean;
  /** Carrier words left without a partner that are ordinary carrier words (NORTH, FIRST, PRIME). */
  ordinaryAdded: number;
  /** Carrier words left without a partner that identify (neither ordinary, trade word, particle, legal form nor letter). */
  otherAdded: number;
}

function entityEvidence(carrier: PreparedName, listed: PreparedName, result: NameScore): Evidence {
  const partner = new Map<number, [number, number]>();
  for (const [i, j, sim] of result.pairs) partner.set(j, [i, sim]);
  const evidence: Evidence = {
    listIdentifying: 0, exactIdentifying: 0, fuzzyIdentifying: 0, transliterated: 0, exactRare: 0, coveredAll: true, spelledApart: false, exactCore: false,
    listInformation: 0, carrierExtra: 0, numbersAgree: carrier.numbers !== '' && carrier.numbers === listed.numbers,
    coveredWhole: true, ordinaryAdded: 0, otherAdded: 0,
  };
  listed.tokens.forEach((token, j) => {
    const pair = partner.get(j);
    // Folded spellings of a short word (BOOT / BOTH both fold to BOT) are not the same word. A listed acronym
    // paired with a carrier's single letter was spelt letter by letter (scoreNames pairs an entity's letters no other way).
    const identical = pair !== undefined && pair[1] >= 0.97 && (carrier.tokens[pair[0]] === token || Math.min(token.length, carrier.tokens[pair[0]]!.length) >= 5
      || (carrier.tokens[pair[0]]!.length === 1 && token.length > 1));
    if (!identical && !optionalToken(token)) evidence.coveredAll = false;
    if (identical && pair[1] < 1) evidence.spelledApart = true;
    if (!identical && (!isParticle(token) || token.length === 1)) evidence.coveredWhole = false;
    evidence.listInformation += information(token);
    if (baseWeight(token) !== null || isNumber(token)) return;
    evidence.listIdentifying += 1;
    if (!pair) return;
    if (identical) {
      evidence.exactIdentifying += 1;
      if (information(token) >= RARE_WEIGHT && token.length >= 3) evidence.exactRare += 1;
    } else {
      evidence.fuzzyIdentifying += 1;
      const i = pair[0];
      if (carrier.skeletons[i] === listed.skeletons[j] && carrier.skeletons[i]!.length >= 4 && carrier.folded[i]!.length === listed.folded[j]!.length) evidence.transliterated += 1;
    }
  });
  const used = new Set(result.pairs.map(([i]) => i));
  carrier.tokens.forEach((token, i) => {
    if (used.has(i)) return;
    if (baseWeight(token) === null && token.length > 1) evidence.carrierExtra += information(token);
    if (COMMON_CARRIER_WORDS.has(token)) evidence.ordinaryAdded += 1;
    else if (isNumber(token) || (baseWeight(token) === null && token.length > 1)) evidence.otherAdded += 1;
  });
  evidence.exactCore = evidence.coveredAll
    && carrier.tokens.every((token, i) => used.has(i) || isParticle(token) || LEGAL_FORMS.has(token));
  return evidence;
}

/**
 * A list name whose identity rests on letters: it holds a single letter or a two-letter acronym, and every identifying
 * word is one (B S COMPANY, IS BANK, G&G INTERNACIONAL, CK INTERNATIONAL). Weak on its own, but not made of words
 * every carrier uses.
 */
function letteredName(listed: PreparedName): boolean {
  const letters = listed.tokens.filter((token) => token.length <= 2 && /^[A-Z]+$/.test(token) && !isParticle(token));
  // Letters alone (J & E S. DE R.L.) are too little to recognise among a carrier's words: a word must go with them.
  const word = listed.tokens.some((token) => token.length > 2 && !isParticle(token));
  return letters.length > 0 && word && listed.identifying.every((i) => listed.tokens[i]!.length <= 2);
}

/** A listed name with enough information to be recognised inside a longer carrier name (see matchOne). */
function containableName(listed: PreparedName): boolean {
  const kept = listed.tokens.filter((token) => !optionalToken(token));
  // A short identifying word is recognisable only with two more words around it (SAD IMPORT EXPORT).
  const weak = weakListName(listed);
  if (weak === 'ordinary' || (weak === 'short' && kept.length < 3)) return false;
  // One long, rare word is recognisable on its own (PRIME LOS RASTROJOS TRUCKING).
  if (kept.length === 1) return kept[0]!.length >= LONE_CONTAINABLE_LENGTH && information(kept[0]!) >= RARE_WEIGHT && !isNumber(kept[0]!);
  const total = kept.reduce((sum, token) => sum + information(token), 0);
  return total >= CONTAINABLE_INFORMATION && kept.some((token) => baseWeight(token) === null && !isNumber(token) && token.length >= 3 && information(token) >= RARE_WEIGHT);
}

/** A token an acronym may be: two to four letters. */
const ACRONYM = /^[A-Z]{2,4}$/;
/** Single letters of a carrier name considered for acronyms (the first ones). */
const MAX_LETTERS = 6;

function sortedLetters(token: string): string {
  return [...token].sort().join('');
}

/**
 * Every group of two to four of a carrier name's single letters, as sorted letters with the bits of their token
 * positions: E G T TRANSPORT spells TEG, GET and ETG alike (order is not kept by carriers who scatter them).
 */
function letterGroups(carrier: PreparedName): Array<[string, number]> {
  const at: number[] = [];
  carrier.tokens.forEach((token, i) => { if (token.length === 1 && i < 30 && at.length < MAX_LETTERS && /[A-Z]/.test(token)) at.push(i); });
  const out: Array<[string, number]> = [];
  const limit = 1 << at.length;
  for (let subset = 3; subset < limit; subset++) {
    let size = 0;
    for (let v = subset; v !== 0; v &= v - 1) size += 1;
    if (size < 2 || size > 4) continue;
    let letters = '';
    let bits = 0;
    at.forEach((i, k) => { if (subset & (1 << k)) { letters += carrier.tokens[i]!; bits |= 1 << i; } });
    out.push([sortedLetters(letters), bits]);
  }
  return out;
}

function pairKey(a: string, b: string): string {
  return a < b ? `${a} ${b}` : `${b} ${a}`;
}

/** A listed person's name inside a business name: the share of the person's name found, generic words aside. */
function containmentScore(carrier: PreparedName, listed: PreparedName, pairs: Array<[number, number, number]>): number {
  let numerator = 0;
  let denominator = listed.total;
  for (const [i, j, s] of pairs) {
    numerator += s * listed.weights[j]!;
    void i;
  }
  // Identifying carrier tokens outside the person's name dilute (MOREY HOLDINGS is generic; MOREY ACME is not).
  const used = new Set(pairs.map(([i]) => i));
  carrier.weights.forEach((w, i) => {
    if (!used.has(i) && w > GENERIC_WEIGHT && w !== PARTICLE_WEIGHT && !BUSINESS_WORDS.has(carrier.tokens[i]!)) denominator += w;
  });
  return Math.min(0.999, numerator / Math.max(denominator, 1e-9));
}

/** Hits that would hard-stop sort first, then entities, then by score. */
function decisiveRank(hit: WatchlistHit): number {
  if (hit.list === 'dnu') return 3;
  if (hit.entity_type === 'entity' || hit.confirmed) return hit.list === 'ofac_cons' ? 1 : 2;
  return 0;
}
