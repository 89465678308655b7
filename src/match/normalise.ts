// Name normalisation for watchlist matching: both sides (carrier names and list names) go through the same
// function, so "Acme Trucking, L.L.C." and "ACME TRUCKING LLC" and "Ácme Trucking Inc" all become
// "ACME TRUCKING". Corporate-form words carry no identity and are dropped wherever they appear at the end.

const CORPORATE_SUFFIXES = new Set([
  'LLC', 'L L C', 'INC', 'INCORPORATED', 'CORP', 'CORPORATION', 'CO', 'COMPANY', 'LTD', 'LIMITED', 'LP', 'LLP',
  'PLLC', 'PC', 'PLC', 'SA', 'SAS', 'SRL', 'SPA', 'AG', 'GMBH', 'BV', 'NV', 'OY', 'AB', 'AS', 'KG', 'PTE',
  'PTY', 'LLLP', 'DBA', 'FZE', 'FZCO', 'JSC', 'OJSC', 'PJSC', 'CJSC', 'OOO', 'ZAO', 'OAO', 'TOO', 'EST',
]);

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** Uppercase, diacritics stripped, & → AND, punctuation → space, corporate suffixes and a leading THE dropped. */
export function normaliseName(raw: string): string {
  // NFKD and the combining-mark strip change nothing in printable ASCII (nearly every carrier name): skip both.
  const folded = PRINTABLE_ASCII.test(raw) ? raw : raw.normalize('NFKD').replace(/[\u0300-\u036f]/g, '');
  const base = folded
    .toUpperCase()
    .replace(/&/g, ' AND ')
    // Dotted abbreviations ("L.L.C.", "S.A.") collapse to letters before punctuation becomes space.
    .replace(/\b([A-Z])\.(?=[A-Z]\.)/g, '$1')
    .replace(/[^A-Z0-9 ]+/g, (match) => (match === "'" || match === '.' ? '' : ' '))
    .replace(/\s+/g, ' ')
    .trim();
  const tokens = base === '' ? [] : base.split(' ');
  while (tokens.length > 1 && CORPORATE_SUFFIXES.has(tokens[tokens.length - 1] ?? '')) tokens.pop();
  if (tokens.length > 1 && tokens[0] === 'THE') tokens.shift();
  return tokens.join(' ');
}

/**
 * Every normalised form a list name should be matched under. OFAC writes individuals "LAST, First Middle";
 * carriers named after their owner write "FIRST LAST", so the reordered form is indexed too.
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
