// The abbreviation table with one typo tolerated in a long table word (src/match/abbreviations.ts).
import { describe, expect, it } from 'vitest';
import { canonicalWord } from '../../src/match/abbreviations.js';

describe('canonicalWord', () => {
  it.each([
    ['INTL', 'INTERNATIONAL'],
    ['INVERSIONES', 'INVESTMENT'],
    ['INVERSIOES', 'INVESTMENT'],
    ['INTERNATINAL', 'INTERNATIONAL'],
    ['MANUFACTRUING', 'MANUFACTURING'],
    ['DISTRIBUIDRA', 'DISTRIBUTION'],
  ])('%s → %s', (token, canonical) => expect(canonicalWord(token)).toBe(canonical));

  it.each(['TRUCKING', 'HEZBOLLAH', 'INVEST0R', 'NATION', 'GEN2'])('leaves %s alone unless the table knows it', (token) => {
    expect(canonicalWord(token)).toBe(token === 'GEN2' ? 'GEN2' : token);
  });
});
