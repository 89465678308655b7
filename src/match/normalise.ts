// Name normalisation for watchlist matching. Both sides (carrier names and list names) go through the same
// functions, so "Acme Trucking, L.L.C.", "ACME TRUCKING LLC" and "Ácme Trucking S.A. de C.V." all become
// "ACME TRUCKING". Legal forms carry no identity and are dropped at the end (and at the start, where
// Russian-style names put them: "OOO ROMASHKA"). Token folding then removes the romanisation differences
// between spellings of one Arabic or Cyrillic name (Q/K, KH/H, OU/U, doubled letters, a final -AH), and the
// skeleton (consonant frame) keys names whose vowels differ (HEZBOLLAH / HIZBALLAH).
import { LEGAL_FORM_PHRASES, LEGAL_FORMS, PARTICLES, PERSON_AFFIXES } from './name-tables.js';

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
/** Legal forms that lead the name in some countries' style (OOO "ROMASHKA", PT ..., TOO ...). */
const LEADING_LEGAL_FORMS = new Set(['OOO', 'ZAO', 'OAO', 'PAO', 'AO', 'TOO', 'PT', 'JSC', 'CJSC', 'OJSC', 'PJSC', 'LLC', 'TOV', 'UAB', 'SIA']);

/** Uppercase, diacritics stripped, & → AND, dotted abbreviations closed up, other punctuation → space. */
const PLAIN = /^[A-Z0-9 ]*$/;
/**
 * An English possessive at the end of a word of two or more letters (ISI'S, PEOPLE'S, LORD'S): the word is the one
 * before the apostrophe. Closing it up instead would turn ISI'S TOWING into the token ISIS. A letter's possessive
 * (D'S SUPERMARKET) stays closed up: DS, as an initialism is written. Upper case only (basicTokens upper-cases first).
 */
export const POSSESSIVE = /(?<=[A-Z0-9]{2})['`\u2019]S(?![A-Z0-9])/g;

export function basicTokens(raw: string): string[] {
  // Most census names are already upper-case letters, digits and spaces.
  if (PLAIN.test(raw)) {
    const trimmed = raw.trim();
    return trimmed === '' ? [] : trimmed.split(/ +/);
  }
  // NFKD and the combining-mark strip change nothing in printable ASCII (nearly every carrier name): skip both.
  const folded = PRINTABLE_ASCII.test(raw) ? raw : raw.normalize('NFKD').replace(/[\u0300-\u036f]/g, '');
  const base = folded
    .toUpperCase()
    .replace(POSSESSIVE, '')
    .replace(/&/g, ' AND ')
    // Dotted abbreviations ("L.L.C.", "S.A.") collapse to letters before punctuation becomes space.
    .replace(/\b([A-Z])\.(?=[A-Z]\.)/g, '$1')
    .replace(/[^A-Z0-9 ]+/g, (match) => (match === "'" || match === '.' || match === '`' ? '' : ' '))
    .trim();
  return base === '' ? [] : base.split(/\s+/);
}

function endsWith(tokens: string[], phrase: string[]): boolean {
  if (phrase.length >= tokens.length) return false;
  const offset = tokens.length - phrase.length;
  for (let i = 0; i < phrase.length; i++) if (tokens[offset + i] !== phrase[i]) return false;
  return true;
}

const GLUED_FORM = /^([A-Z0-9]+?)(LLC|INC|CORP|CORPORATION|LTD|LTDA|GMBH|FZE|FZCO|SARL|SAS|SRL)$/;
const PHRASE_ENDINGS = new Set(LEGAL_FORM_PHRASES.map((phrase) => phrase[phrase.length - 1]!));
const LONG_FORMS = ['CORPORATION', 'INCORPORATED', 'LIMITED', 'COMPANY'];

/** A long legal form with one letter wrong, missing or swapped ("CORPDRATION", "LIMITID"): still a legal form. */
function misspeltLongForm(token: string): boolean {
  if (token.length < 6) return false;
  for (const form of LONG_FORMS) {
    if (Math.abs(form.length - token.length) > 1 || form[0] !== token[0]) continue;
    if (withinOneEdit(token, form)) return true;
  }
  return false;
}

/** One substitution, insertion, deletion or adjacent transposition apart (or equal). */
export function withinOneEdit(a: string, b: string): boolean {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i += 1;
  if (i === a.length && i === b.length) return true;
  const rest = (x: string, y: string) => x === y;
  return rest(a.slice(i + 1), b.slice(i + 1)) || rest(a.slice(i), b.slice(i + 1)) || rest(a.slice(i + 1), b.slice(i))
    || (a[i] === b[i + 1] && a[i + 1] === b[i] && rest(a.slice(i + 2), b.slice(i + 2)));
}

/** Drops legal forms (single tokens and phrases) from the end, leading ones from the start, THE, JR/SR/III. */
export function stripForms(input: string[]): { tokens: string[]; hadLegalForm: boolean } {
  const tokens = [...input];
  let hadLegalForm = false;
  let changed = true;
  // A legal form glued to a single-word name ("ZTECORPORATION", "CLAMASANSAS").
  if (tokens.length === 1) {
    const glued = GLUED_FORM.exec(tokens[0]!);
    if (glued && glued[1]!.length >= 3) { tokens[0] = glued[1]!; hadLegalForm = true; }
  }
  while (changed && tokens.length > 1) {
    changed = false;
    const last = tokens[tokens.length - 1]!;
    // Phrases first, longest first: "S A DE C V" must go whole, not just its "CV".
    if (PHRASE_ENDINGS.has(last)) {
      for (const phrase of LEGAL_FORM_PHRASES) {
        if (endsWith(tokens, phrase)) { tokens.length -= phrase.length; hadLegalForm = true; changed = true; break; }
      }
      if (changed) continue;
    }
    if (LEGAL_FORMS.has(last) || misspeltLongForm(last)) { tokens.pop(); hadLegalForm = true; changed = true; continue; }
    // A legal form glued to the word before it ("SERVICELLC", "EUROPEGMBH", "COMPANYFZE").
    const glued = GLUED_FORM.exec(last);
    if (glued && glued[1]!.length >= 3) { tokens[tokens.length - 1] = glued[1]!; hadLegalForm = true; changed = true; continue; }
    if (PERSON_AFFIXES.has(last)) { tokens.pop(); changed = true; continue; }
  }
  if (tokens.length > 1 && LEADING_LEGAL_FORMS.has(tokens[0]!)) { tokens.shift(); hadLegalForm = true; }
  if (tokens.length > 1 && tokens[0] === 'THE') tokens.shift();
  return { tokens, hadLegalForm };
}

/** The normalised name as one string: basic tokens with legal forms and a leading THE removed. */
export function normaliseName(raw: string): string {
  return stripForms(basicTokens(raw)).tokens.join(' ');
}

/**
 * Folds one token so romanisation variants coincide: PH→F, Q→K, CK→K, KH→H, GH→G, DH→D, TH→T, DJ→J,
 * TCH→CH, OU/OO→U, EE/IY/Y→I, W→V, KS→X, a final vowel+H loses the H, doubled letters are single. Digits only:
 * leading zeros dropped. Applied to both sides, so it never has to be a faithful transcription.
 */
export function foldToken(token: string): string {
  // Carrier names reuse a small vocabulary millions of times: remember answers (bounded).
  const cached = FOLD_CACHE.get(token);
  if (cached !== undefined) return cached;
  const folded = foldUncached(token);
  if (FOLD_CACHE.size >= CACHE_MAX) FOLD_CACHE.clear();
  FOLD_CACHE.set(token, folded);
  return folded;
}

const CACHE_MAX = 200_000;
const FOLD_CACHE = new Map<string, string>();

function foldUncached(token: string): string {
  if (/^\d+$/.test(token)) return token.replace(/^0+(?=\d)/, '');
  // Short tokens and tokens without a vowel are mostly acronyms (PKK, PQ, JV, LKCK): spelling rules do not apply.
  if (token.length <= 3 || !/[AEIOUY]/.test(token)) return token;
  let s = token.replace(/(.)\1+/g, '$1');
  s = s.replace(/PH/g, 'F').replace(/Q/g, 'K').replace(/CK/g, 'K').replace(/KH/g, 'H').replace(/GH/g, 'G')
    .replace(/DH/g, 'D').replace(/TH/g, 'T').replace(/DJ/g, 'J').replace(/TCH/g, 'CH')
    .replace(/OU/g, 'U').replace(/OO/g, 'U').replace(/EE/g, 'I').replace(/IY/g, 'I').replace(/Y/g, 'I')
    .replace(/W/g, 'V').replace(/KS/g, 'X');
  if (s.length > 3) s = s.replace(/([AEIOU])H$/, '$1');
  return s.replace(/(.)\1+/g, '$1');
}

/** Consonant frame of a folded token: first letter, then consonants other than H, repeats collapsed. */
export function skeleton(folded: string): string {
  const cached = SKELETON_CACHE.get(folded);
  if (cached !== undefined) return cached;
  const frame = skeletonUncached(folded);
  if (SKELETON_CACHE.size >= CACHE_MAX) SKELETON_CACHE.clear();
  SKELETON_CACHE.set(folded, frame);
  return frame;
}

const SKELETON_CACHE = new Map<string, string>();

function skeletonUncached(folded: string): string {
  if (folded.length === 0 || /^\d/.test(folded)) return folded;
  let out = folded[0]!;
  for (let i = 1; i < folded.length; i++) {
    const c = folded[i]!;
    if (c === 'A' || c === 'E' || c === 'I' || c === 'O' || c === 'U' || c === 'H') continue;
    if (out[out.length - 1] !== c) out += c;
  }
  return out;
}

export function isParticle(token: string): boolean {
  return PARTICLES.has(token);
}

/**
 * Every normalised form a list name should be matched under. OFAC writes individuals "LAST, First Middle";
 * matching is order-insensitive, so the reordered form is only kept for display and exact lookups.
 */
export function nameVariants(raw: string, individual: boolean): string[] {
  const variants = new Set<string>();
  const plain = normaliseName(raw);
  if (plain) variants.add(plain);
  const comma = raw.indexOf(',');
  if (individual && comma > 0) {
    const reordered = normaliseName(`${raw.slice(comma + 1)} ${raw.slice(0, comma)}`);
    if (reordered) variants.add(reordered);
  }
  return [...variants];
}

/** A carrier name may itself hold two names: "SMITH JOHN DBA SMITH HAULING". Both halves are matched. */
export function splitDba(raw: string): string[] {
  const parts = raw.split(/\s+(?:D\/B\/A|D\.B\.A\.?|DBA|A\/K\/A|AKA|T\/A)\s+/i).map((part) => part.trim()).filter(Boolean);
  return parts.length > 1 ? parts : [raw];
}
