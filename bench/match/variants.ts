// Planted variants: a listed name written the way a carrier registration might write it. Every kind of
// variation the matcher claims to survive is produced, so recall is measured per kind.
import { pick, type Rng } from './population.js';

export const VARIATION_KINDS = [
  'punctuation', 'legal_form', 'word_order', 'transliteration', 'typo', 'trade_word', 'spacing', 'exact',
] as const;
export type VariationKind = (typeof VARIATION_KINDS)[number];

const FORMS = [', LLC', ' INC.', ' S.A. DE C.V.', ' LTDA', ' SARL', ' CO., LTD.', ' GMBH', ' L.L.C.', ' S.A.', ' CORP'];
const TRADE = ['TRUCKING', 'LOGISTICS', 'TRANSPORT', 'FREIGHT LINES', 'EXPRESS'];
const LEGAL_TAIL = /[,\s]+(LLC|L\.L\.C\.|INC\.?|CORP\.?|CO\.?|LTD\.?|LIMITED|S\.A\.?|SA|LTDA|SARL|GMBH|JSC|OJSC|CJSC|PJSC|FZE|FZCO|LLP|S\.R\.L\.?|SRL|S\.A\.S\.?|PLC|AG|OOO|B\.V\.?)\s*$/i;

/** Transliteration rules that romanisations actually differ by (Arabic, Persian, Cyrillic). */
const TRANSLIT: Array<[RegExp, string]> = [
  [/Q/, 'K'], [/K(?=[AEIOU])/, 'Q'], [/\bAL[- ]/, 'EL-'], [/\bAL[- ]/, 'AL'], [/\bEL[- ]/, 'AL-'], [/OU/, 'U'], [/U(?=[^AEIOU])/, 'OU'],
  [/([BDFGLMNPRSTZ])\1/, '$1'], [/([AEIOU])([LMNRS])([AEIOU])/, '$1$2$2$3'], [/KH/, 'H'], [/(?<=[A-Z])E(?=[^AEIOU])/, 'I'],
  [/(?<=[A-Z])I(?=[^AEIOU])/, 'E'], [/A\b/, 'AH'], [/Y/, 'I'], [/W/, 'V'], [/V/, 'W'], [/(?<=[A-Z])O(?=[^AEIOU])/, 'U'],
  [/(?<=[A-Z])U(?=[^AEIOU])/, 'O'], [/J/, 'DJ'], [/SH/, 'SCH'], [/IY/, 'I'], [/EE/, 'I'],
];

function tokens(name: string): string[] {
  return name.split(/\s+/).filter(Boolean);
}

function typo(r: Rng, name: string): string {
  const parts = tokens(name);
  let longest = 0;
  parts.forEach((p, i) => { if (p.replace(/[^A-Z]/g, '').length > parts[longest]!.replace(/[^A-Z]/g, '').length) longest = i; });
  const word = parts[longest]!;
  if (word.length < 5) return name;
  const at = 1 + Math.floor(r() * (word.length - 2));
  const kind = r();
  let changed: string;
  if (kind < 0.34) changed = word.slice(0, at) + String.fromCharCode(65 + Math.floor(r() * 26)) + word.slice(at + 1);
  else if (kind < 0.67) changed = word.slice(0, at) + word.slice(at + 1);
  else changed = word.slice(0, at) + (word[at + 1] ?? '') + word[at] + word.slice(at + 2);
  parts[longest] = changed;
  return parts.join(' ');
}

/** One variant of `name` (as the list writes it, individuals already as "First Last"). null when the kind cannot apply. */
export function vary(r: Rng, name: string, kind: VariationKind, individual: boolean): string | null {
  const upper = name.toUpperCase();
  switch (kind) {
    case 'exact': return name;
    case 'punctuation': {
      const t = tokens(upper);
      if (t.length < 2) return `${upper}.`;
      return r() < 0.5 ? t.join('-') : `${t.slice(0, -1).join(' ')}, ${t[t.length - 1]}`.replace(/'/g, '').toLowerCase();
    }
    case 'legal_form': {
      if (individual) return null;
      return upper.replace(LEGAL_TAIL, '') + pick(r, FORMS);
    }
    case 'word_order': {
      const t = tokens(upper.replace(LEGAL_TAIL, ''));
      if (t.length < 2) return null;
      if (individual) return [t[t.length - 1]!, ...t.slice(0, -1)].join(' ');
      const rotated = [...t.slice(1), t[0]!];
      return rotated.join(' ');
    }
    case 'transliteration': {
      const rules = TRANSLIT.filter(([pattern]) => pattern.test(upper));
      if (rules.length === 0) return null;
      const [pattern, replacement] = pick(r, rules);
      const out = upper.replace(pattern, replacement);
      return out === upper ? null : out;
    }
    case 'typo': {
      const out = typo(r, upper);
      return out === upper ? null : out;
    }
    case 'trade_word': {
      if (individual) return `${upper} ${pick(r, TRADE)}`;
      return `${upper.replace(LEGAL_TAIL, '')} ${pick(r, TRADE)} LLC`;
    }
    case 'spacing': {
      const t = tokens(upper);
      if (t.length >= 2) {
        const at = Math.floor(r() * (t.length - 1));
        return [...t.slice(0, at), t[at]! + t[at + 1]!, ...t.slice(at + 2)].join(' ');
      }
      const word = t[0]!;
      if (word.length < 6) return null;
      const at = 2 + Math.floor(r() * (word.length - 4));
      return `${word.slice(0, at)} ${word.slice(at)}`;
    }
  }
}
