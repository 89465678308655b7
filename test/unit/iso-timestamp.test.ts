import { describe, expect, it } from 'vitest';
import { isoTimestamp } from '../../src/core/dates.js';

describe('isoTimestamp', () => {
  it('is toISOString for the edges of its own formatting and of the calendar', () => {
    const edges = [
      0, 1, 999, 86_399_999, 86_400_000,
      Date.UTC(2000, 1, 29, 23, 59, 59, 999), Date.UTC(2000, 2, 1), Date.UTC(2100, 1, 28, 12), Date.UTC(2100, 2, 1),
      Date.UTC(1972, 1, 29), Date.UTC(2024, 11, 31, 23, 59, 59, 999), Date.UTC(2025, 0, 1), Date.UTC(2026, 10, 24, 21, 7, 3, 45),
      Date.UTC(9999, 11, 31, 23, 59, 59, 999), Date.UTC(10_000, 0, 1), -1, Date.UTC(1969, 11, 31, 12), 1.5,
    ];
    for (const ms of edges) expect(isoTimestamp(ms), String(ms)).toBe(new Date(ms).toISOString());
  });

  it('is toISOString for random instants from 1970 to 9999', () => {
    let seed = 17;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    for (let i = 0; i < 20_000; i += 1) {
      const ms = Math.floor(random() * random() * 253_402_300_800_000);
      expect(isoTimestamp(ms)).toBe(new Date(ms).toISOString());
    }
  });

  it('throws as toISOString does for NaN, also right after a millisecond it formatted', () => {
    isoTimestamp(Date.UTC(2026, 10, 24, 21, 7, 3, 45));
    expect(() => isoTimestamp(Number.NaN)).toThrow(RangeError);
  });
});
