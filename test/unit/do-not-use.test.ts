import { describe, expect, it } from 'vitest';
import { doNotUseIndex } from '../../src/state/do-not-use.js';

const NOW = Date.parse('2026-11-21T12:00:00Z');

describe('doNotUseIndex', () => {
  const index = doNotUseIndex({
    '100': JSON.stringify({ reason: 'fraud', added_at: '2026-01-01', expires_at: null }),
    '200': JSON.stringify({ reason: 'late twice', added_at: '2026-01-01', expires_at: '2026-12-01' }),
    '300': JSON.stringify({ reason: 'old', added_at: '2025-01-01', expires_at: '2026-06-01' }),
    '400': 'hand-edited, not JSON',
  });

  it('holds entries without expiry and until their expiry', () => {
    expect(index.has('100', NOW)).toBe(true);
    expect(index.has('200', NOW)).toBe(true);
    expect(index.has('200', Date.parse('2026-12-01T00:00:01Z'))).toBe(false);
    expect(index.has('300', NOW)).toBe(false);
  });

  it('fails closed on a value it cannot read, and knows nothing else', () => {
    expect(index.has('400', NOW)).toBe(true);
    expect(index.has('999', NOW)).toBe(false);
    expect(index.size).toBe(4);
  });
});
