// The canonical word of a token under the abbreviation and language-variant table (name-tables.ts ABBREVIATIONS),
// tolerant of one typo in a long table word: INVERSIOES is INVERSIONES, INTERNATINAL is INTERNATIONAL. A typo in a
// word the table maps would otherwise leave the two names with different words where the lists and carriers
// wrote the same one.
import { ABBREVIATIONS } from './name-tables.js';
import { withinOneEdit } from './normalise.js';

/** Table words this long or longer are recognised with one letter wrong, missing, added or swapped. */
const TYPO_LENGTH = 7;

/** One-deletion keys of every long table word (variants and canonical words) → the table words they come from. */
const NEIGHBOURS = new Map<string, string[]>();
for (const word of new Set([...ABBREVIATIONS.keys(), ...ABBREVIATIONS.values()])) {
  if (word.length < TYPO_LENGTH) continue;
  for (const key of [word, ...deletions(word)]) {
    const words = NEIGHBOURS.get(key);
    if (!words) NEIGHBOURS.set(key, [word]);
    else if (!words.includes(word)) words.push(word);
  }
}

function deletions(token: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < token.length; i++) out.push(token.slice(0, i) + token.slice(i + 1));
  return out;
}

const CACHE = new Map<string, string>();
const CACHE_MAX = 200_000;

/** The token's canonical table word, the token itself when the table has none. */
export function canonicalWord(token: string): string {
  const listed = ABBREVIATIONS.get(token);
  if (listed !== undefined) return listed;
  if (token.length < TYPO_LENGTH - 1) return token;
  const cached = CACHE.get(token);
  if (cached !== undefined) return cached;
  const found = nearTableWord(token);
  const canonical = found === null ? token : ABBREVIATIONS.get(found) ?? found;
  if (CACHE.size >= CACHE_MAX) CACHE.clear();
  CACHE.set(token, canonical);
  return canonical;
}

function nearTableWord(token: string): string | null {
  if (/\d/.test(token)) return null;
  for (const key of [token, ...deletions(token)]) {
    for (const word of NEIGHBOURS.get(key) ?? []) if (word !== token && withinOneEdit(token, word)) return word;
  }
  return null;
}
