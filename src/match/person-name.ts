// Is a carrier's name a person's name? FMCSA registers a sole proprietor under the owner's own name
// ("JOHN A SMITH", "SMITH JOHN"), and about a quarter of carriers are sole proprietors. The census has no
// entity-type column, so the name itself decides, by these rules (in order):
//   1. a legal form (LLC, INC, S.A. DE C.V.), a digit or a trade word (TRUCKING, LOGISTICS, ...) → business;
//   2. fewer than two or more than five tokens (after JR/SR/III) → business;
//   3. a token that is a known given name, or a single-letter initial, with every other token alphabetic → person;
//   4. otherwise → unknown (compared with both individuals and entities).
// A wrong "person" only narrows what the name is compared with to listed individuals; a wrong "business" is
// still compared with individuals whose full name it contains. So a mistake costs a flag, never a hard stop.
import type { PreparedName } from './score.js';
import { BUSINESS_WORDS, GIVEN_NAME_SHARE, personTokenShare } from './name-tables.js';
import { basicTokens, isParticle, stripForms } from './normalise.js';

export type NameKind = 'person' | 'business' | 'unknown';

export function classifyName(raw: string): NameKind {
  const { tokens, hadLegalForm } = stripForms(basicTokens(raw));
  if (hadLegalForm) return 'business';
  return classifyTokens(tokens);
}

/** classifyName for a name already prepared by the matcher (same rules, no second tokenisation). */
export function classifyPrepared(name: PreparedName): NameKind {
  if (name.hadLegalForm) return 'business';
  return classifyTokens(name.tokens);
}

function classifyTokens(tokens: string[]): NameKind {
  if (tokens.some((token) => /\d/.test(token) || BUSINESS_WORDS.has(token))) return 'business';
  if (tokens.length < 2 || tokens.length > 5) return 'business';
  if (tokens.some((token) => GIVEN_NAME_SHARE.has(token) || token.length === 1)) return 'person';
  return 'unknown';
}

/** People in the US carrier population a name is expected to be shared with (28% of ~2.2M carriers). */
const PERSON_POPULATION = 600_000;
/** Share assumed for a name token the tables do not know: rare, but not unique. */
export const UNKNOWN_TOKEN_SHARE = 2e-5;

/**
 * How many carrier owners are expected to bear this name (product of token shares times the population).
 * At ≥ 0.5 the name is "common": a match on it alone is weak evidence.
 */
export function expectedBearers(name: PreparedName, indexes: number[]): number {
  let product = PERSON_POPULATION;
  let counted = 0;
  for (const i of indexes) {
    const token = name.tokens[i]!;
    if (token.length === 1 || isParticle(token)) continue;
    product *= personTokenShare(token) || UNKNOWN_TOKEN_SHARE;
    counted += 1;
  }
  return counted === 0 ? PERSON_POPULATION : product;
}

export const COMMON_NAME_BEARERS = 0.5;
