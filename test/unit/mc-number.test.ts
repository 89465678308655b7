import { describe, expect, it } from 'vitest';
import { canonicalMcValue, normaliseDocket, normaliseDotNumber, normaliseMcNumber } from '../../src/core/mc-number.js';

describe('normaliseMcNumber', () => {
  it.each([
    ['123456', '123456'],
    ['MC123456', '123456'],
    ['mc-123456', '123456'],
    ['MC#123456', '123456'],
    ['MC 123456', '123456'],
    ['Mc- 42', '42'],
    ['  MC-000042  ', '42'],
    ['00000001', '1'],
    ['12345678', '12345678'],
  ])('accepts %j as %j', (raw, expected) => {
    expect(normaliseMcNumber(raw)).toBe(expected);
  });

  it.each([
    '', '   ', 'MC', 'MC-', '123456789', 'MX123456', 'FF123', 'DOT123', '12 34', '12a', '-123', '0', 'MC-0000', 'MC--12', '１２３',
  ])('rejects %j', (raw) => {
    expect(normaliseMcNumber(raw)).toBeNull();
  });
});

describe('normaliseMcNumber: the canonical-form shortcut', () => {
  // The rule as the regex states it; normaliseMcNumber answers canonical numbers without it.
  const byRegex = (raw: string): string | null => {
    const digits = /^\s*(?:MC[-#\s]?\s*)?(\d{1,8})\s*$/i.exec(raw)?.[1];
    const bare = digits?.replace(/^0+/, '');
    return bare ? bare : null;
  };

  it('gives the regex answer for every string of 0–10 characters drawn from digits and look-alikes', () => {
    const alphabet = ['0', '1', '5', '9', '0', '7', 'M', 'c', '-', ' ', '#', '\u0663', '/', ':', '\u0000'];
    let seed = 7;
    const next = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed;
    };
    let canonical = 0;
    for (let round = 0; round < 20_000; round += 1) {
      let raw = '';
      const length = next() % 11;
      for (let index = 0; index < length; index += 1) raw += alphabet[next() % alphabet.length];
      const expected = byRegex(raw);
      expect(normaliseMcNumber(raw), JSON.stringify(raw)).toBe(expected);
      if (expected === raw) canonical += 1;
    }
    // The shortcut must actually be taken often, or this proves nothing about it.
    expect(canonical).toBeGreaterThan(500);
  });
});

describe('canonicalMcValue', () => {
  it('gives the number of a canonical MC number, and 0 for anything normaliseMcNumber would change or refuse', () => {
    expect(canonicalMcValue('1')).toBe(1);
    expect(canonicalMcValue('123456')).toBe(123_456);
    expect(canonicalMcValue('99999999')).toBe(99_999_999);
    for (const raw of ['', '0', '0123', 'MC123', '123456789', '12a', ' 12', '-12', '\u0663']) expect(canonicalMcValue(raw), raw).toBe(0);
  });

  it('is non-zero exactly when normaliseMcNumber gives the string back unchanged', () => {
    for (let value = 1; value < 100_000; value += 97) {
      for (const raw of [String(value), `0${value}`, `MC${value}`]) {
        expect(canonicalMcValue(raw) !== 0, raw).toBe(normaliseMcNumber(raw) === raw);
      }
    }
  });
});

describe('normaliseDocket', () => {
  it.each([
    ['MC012892', '12892'], ['MC-424836', '424836'], ['MC1122796', '1122796'], ['MC000647', '647'],
  ])('reads %j as %j', (raw, expected) => {
    expect(normaliseDocket(raw)).toBe(expected);
  });

  it.each(['FF000031', 'MX255345', '', 'MC'])('is null for %j', (raw) => {
    expect(normaliseDocket(raw)).toBeNull();
  });
});

describe('normaliseDotNumber', () => {
  it.each([['00344554', '344554'], ['344554', '344554'], [' 2217388 ', '2217388']])('reads %j as %j', (raw, expected) => {
    expect(normaliseDotNumber(raw)).toBe(expected);
  });

  it.each(['00000000', '', 'abc'])('is null for %j', (raw) => {
    expect(normaliseDotNumber(raw)).toBeNull();
  });
});
