import { describe, expect, it } from 'vitest';
import { normaliseDocket, normaliseDotNumber, normaliseMcNumber } from '../../src/core/mc-number.js';

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
