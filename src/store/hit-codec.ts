// Watch-list hits inside a carrier record (the last part of src/store/carrier-codec.ts's R/Q record).
//
// Why compact: a snapshot bucket (a hash of ~120 carriers at 2M) stays listpack-encoded only while every value
// is at most hash-max-listpack-value (256) bytes; one longer record turns the whole bucket into a hashtable
// (~45 B more per carrier). Hits written as JSON took ~270 B alone, so at 2M carriers with the real OFAC lists
// nearly every bucket converted (138 B per carrier per version instead of ~96).
//
// Format: '~' then one hit per \x1e, fields per \x1f, trailing empty fields left out:
//   list index · entry id · matched name · carrier name (\x01 = the record's legal name, \x02 = its DBA name) ·
//   score ('0.' written '.') · exact ('1') · note · entity type (i/e; empty: no matcher evidence) · programs (\x1d) ·
//   agreed fields (\x1d; one letter for the known ones) · flags (c confirmed, n common name) · UEI · list as-of
//   (base-36 day) · explanation.
// Text fields go through a fixed phrase table (a control character per phrase: the matcher's explanations and the
// lists' notes repeat the same few phrases); control characters in the input become spaces, so decoding is exact.
// Records written before this (hits as a JSON array) still decode.
import type { WatchlistHit } from '../core/carrier.js';

const HIT_LISTS: ReadonlyArray<WatchlistHit['list']> = ['ofac_sdn', 'ofac_cons', 'sam', 'dnu'];
const HIT = '\x1e';
const FIELD = '\x1f';
const LIST = '\x1d';
const LEGAL = '\x01';
const DBA = '\x02';
const DAY_MS = 86_400_000;

/** Longest first, so a phrase inside a longer one is never taken first. At most 26 (tokens \x03..\x1c). */
const PHRASES = [
  'whole listed name inside the carrier name', 'too little of the name agrees exactly', 'one word romanised differently',
  'same letters, spacing differs', 'name inside a business name', 'one word spelt differently', 'no name part identical',
  ', spelt differently', '; carrier only ', ' tokens aligned', 'listed person\'s ', '; numbers differ', '; list only ',
  ', carrier in ', '; listed in ', ' tokens agree', '; spelling ', 'common name', 'state differs', ' LOGISTICS', ' TRANSPORT',
  ' TRUCKING', 'program ', ' agrees', ' LLC', ' INC',
].sort((a, b) => b.length - a.length);
const TOKENS = PHRASES.map((_, i) => String.fromCharCode(3 + i));
const TOKEN_OF = new Map(PHRASES.map((phrase, i) => [phrase, TOKENS[i] as string]));
const PHRASE_OF = new Map(TOKENS.map((token, i) => [token, PHRASES[i] as string]));
const TOKEN_PATTERN = new RegExp(`[${TOKENS.join('')}]`, 'g');
const PHRASE_PATTERN = new RegExp(PHRASES.map((phrase) => phrase.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'g');
// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x1f]/g;

const AGREED = ['legal_name', 'dba_name', 'primary_name', 'alias', 'cross_reference', 'country', 'state', 'city', 'zip'];
const AGREED_CODE = new Map(AGREED.map((name, i) => [name, 'ldpaxcstz'[i] as string]));
const AGREED_NAME = new Map(AGREED.map((name, i) => ['ldpaxcstz'[i] as string, name]));

/** Text as the hit carries it: control characters are the format's own, so they become spaces; phrases become tokens. */
const pack = (value: string) => value.replace(CONTROL, ' ').replace(PHRASE_PATTERN, (phrase) => TOKEN_OF.get(phrase) ?? phrase);
const unpack = (value: string) => value.replace(TOKEN_PATTERN, (token) => PHRASE_OF.get(token) ?? token);

function day(iso: string): string {
  const ms = Date.parse(`${iso.slice(0, 10)}T00:00:00Z`);
  // Only a plain ISO day is written as a number; anything else stays as written (prefixed '=').
  return Number.isFinite(ms) && /^\d{4}-\d{2}-\d{2}$/.test(iso) ? Math.round(ms / DAY_MS).toString(36) : `=${pack(iso)}`;
}

function undayOf(value: string): string {
  return value.startsWith('=') ? unpack(value.slice(1)) : new Date(parseInt(value, 36) * DAY_MS).toISOString().slice(0, 10);
}

/** The names the record itself stores (already truncated and cleaned by the record codec), which hits refer to. */
export interface RecordNames { legal: string; dba: string | null }

function encodeHit(hit: WatchlistHit, names: RecordNames): string {
  const carrierName = hit.carrier_name.slice(0, 80);
  const fields = [
    String(Math.max(0, HIT_LISTS.indexOf(hit.list))), pack(hit.entry_id), pack(hit.matched_name.slice(0, 80)),
    carrierName === names.legal ? LEGAL : names.dba !== null && carrierName === names.dba ? DBA : pack(carrierName),
    String(hit.score).replace(/^0\./, '.'), hit.exact ? '1' : '', pack((hit.note ?? '').slice(0, 80)),
  ];
  if (hit.entity_type !== undefined) {
    fields.push(
      hit.entity_type === 'individual' ? 'i' : 'e',
      (hit.programs ?? []).slice(0, 6).map((program) => pack(program.slice(0, 40))).join(LIST),
      (hit.agreed ?? []).map((name) => AGREED_CODE.get(name) ?? pack(name)).join(LIST),
      `${hit.confirmed ? 'c' : ''}${hit.common_name ? 'n' : ''}`, pack(hit.uei ?? ''), hit.list_as_of ? day(hit.list_as_of) : '',
      pack((hit.explanation ?? '').slice(0, 200)),
    );
  }
  while (fields.length > 6 && fields[fields.length - 1] === '') fields.pop();
  return fields.join(FIELD);
}

function decodeHit(encoded: string, names: RecordNames): WatchlistHit {
  const f = encoded.split(FIELD);
  const at = (index: number) => f[index] ?? '';
  const carrier = at(3);
  const hit: WatchlistHit = {
    list: HIT_LISTS[Number(at(0))] ?? 'dnu', entry_id: unpack(at(1)), matched_name: unpack(at(2)),
    carrier_name: carrier === LEGAL ? names.legal : carrier === DBA ? names.dba ?? '' : unpack(carrier),
    score: Number(at(4).startsWith('.') ? `0${at(4)}` : at(4)), exact: at(5) === '1',
  };
  if (at(6)) hit.note = unpack(at(6));
  const type = at(7);
  if (type === 'i' || type === 'e') {
    hit.entity_type = type === 'i' ? 'individual' : 'entity';
    if (at(8)) hit.programs = at(8).split(LIST).map(unpack);
    if (at(9)) hit.agreed = at(9).split(LIST).map((code) => AGREED_NAME.get(code) ?? unpack(code));
    if (at(10).includes('c')) hit.confirmed = true;
    if (at(10).includes('n')) hit.common_name = true;
    if (at(11)) hit.uei = unpack(at(11));
    if (at(12)) hit.list_as_of = undayOf(at(12));
    if (at(13)) hit.explanation = unpack(at(13));
  }
  return hit;
}

export function encodeHits(hits: readonly WatchlistHit[], names: RecordNames): string {
  return hits.length === 0 ? '' : `~${hits.map((hit) => encodeHit(hit, names)).join(HIT)}`;
}

/** Matcher evidence under short keys, as records written before the compact form carry it. */
interface JsonEvidence { t?: 'i' | 'e'; p?: string[]; a?: string[]; c?: 1; n?: 1; u?: string; d?: string; x?: string }
type JsonHit = [number, string, string, string, number, 0 | 1, string?, JsonEvidence?];

function decodeJsonHits(json: string): WatchlistHit[] {
  return (JSON.parse(json) as JsonHit[]).map(([list, entryId, matched, carrierName, score, exact, note, e]) => {
    const hit: WatchlistHit = {
      list: HIT_LISTS[list] ?? 'dnu', entry_id: entryId, matched_name: matched, carrier_name: carrierName, score, exact: exact === 1,
    };
    if (note) hit.note = note;
    if (e?.t) {
      hit.entity_type = e.t === 'i' ? 'individual' : 'entity';
      if (e.p) hit.programs = e.p;
      if (e.a) hit.agreed = e.a;
      if (e.c === 1) hit.confirmed = true;
      if (e.n === 1) hit.common_name = true;
      if (e.u) hit.uei = e.u;
      if (e.d) hit.list_as_of = e.d;
      if (e.x) hit.explanation = e.x;
    }
    return hit;
  });
}

export function decodeHits(text: string, names: RecordNames): WatchlistHit[] {
  if (text === '') return [];
  if (text.startsWith('~')) return text.slice(1).split(HIT).map((hit) => decodeHit(hit, names));
  return decodeJsonHits(text);
}
