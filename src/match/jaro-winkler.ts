// Jaro-Winkler similarity (0..1). Written here rather than imported: it is short, and the matcher's
// review threshold is only meaningful if we know exactly which variant computes it (prefix scale 0.1,
// prefix capped at 4 characters, boost applied to any Jaro score, as in Winkler 1990).

const PREFIX_SCALE = 0.1;
const MAX_PREFIX = 4;

export function jaro(a: string, b: string): number {
  if (a === b) return a.length === 0 ? 1 : 1;
  if (a.length === 0 || b.length === 0) return 0;
  const window = Math.max(0, Math.floor(Math.max(a.length, b.length) / 2) - 1);
  const matchedA = new Uint8Array(a.length);
  const matchedB = new Uint8Array(b.length);
  let matches = 0;
  for (let i = 0; i < a.length; i++) {
    const from = Math.max(0, i - window);
    const to = Math.min(b.length - 1, i + window);
    for (let j = from; j <= to; j++) {
      if (matchedB[j] || a.charCodeAt(i) !== b.charCodeAt(j)) continue;
      matchedA[i] = 1;
      matchedB[j] = 1;
      matches += 1;
      break;
    }
  }
  if (matches === 0) return 0;
  let transpositions = 0;
  let j = 0;
  for (let i = 0; i < a.length; i++) {
    if (!matchedA[i]) continue;
    while (!matchedB[j]) j += 1;
    if (a.charCodeAt(i) !== b.charCodeAt(j)) transpositions += 1;
    j += 1;
  }
  const m = matches;
  return (m / a.length + m / b.length + (m - transpositions / 2) / m) / 3;
}

export function jaroWinkler(a: string, b: string): number {
  const similarity = jaro(a, b);
  let prefix = 0;
  const limit = Math.min(MAX_PREFIX, a.length, b.length);
  while (prefix < limit && a.charCodeAt(prefix) === b.charCodeAt(prefix)) prefix += 1;
  return similarity + prefix * PREFIX_SCALE * (1 - similarity);
}
