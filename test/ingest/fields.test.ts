import { describe, expect, it } from 'vitest';
import { IngestError } from '../../src/ingest/errors.js';
import { cleanCell, HeaderMap, looksLikeHeader, parseAmount, parseDate, positionalReader } from '../../src/ingest/fields.js';
import { toUsd } from '../../src/ingest/sources/common.js';

describe('parseDate', () => {
  it.each([
    ['07/26/2024', '2024-07-26'],
    ['7/6/2024', '2024-07-06'],
    ['20250429', '2025-04-29'],
    ['20250429 0000', '2025-04-29'],
    ['2026-09-26', '2026-09-26'],
    ['2026-09-26T00:00:00.000', '2026-09-26'],
    ['', null],
  ])('%s → %s', (raw, expected) => expect(parseDate(raw)).toBe(expected));
  it('rejects impossible and foreign dates', () => {
    expect(parseDate('02/30/2024')).toBeUndefined();
    expect(parseDate('05-MAR-20')).toBeUndefined();
    expect(parseDate('yesterday')).toBeUndefined();
  });
});

describe('amounts and units', () => {
  it('parses padded thousands and tolerates $ and commas', () => {
    expect(parseAmount('00750')).toBe(750);
    expect(parseAmount('$1,000,000')).toBe(1_000_000);
    expect(parseAmount('')).toBeNull();
    expect(parseAmount('abc')).toBeUndefined();
  });
  it('keeps a zero as a value: "00000" is no insurance on file, not unknown', () => {
    expect(toUsd(parseAmount('00000')!, 'thousands')).toBe(0);
  });
  it('converts units explicitly; auto treats values under 10000 as thousands', () => {
    expect(toUsd(750, 'thousands')).toBe(750_000);
    expect(toUsd(750_000, 'dollars')).toBe(750_000);
    expect(toUsd(1000, 'auto')).toBe(1_000_000);
    expect(toUsd(1_000_000, 'auto')).toBe(1_000_000);
    expect(toUsd(null, 'auto')).toBeNull();
  });
});

describe('cells, headers, positions', () => {
  it('treats OFAC "-0-" and "-0- " as empty', () => {
    expect(cleanCell('-0- ')).toBe('');
    expect(cleanCell('-0-')).toBe('');
    expect(cleanCell(' x ')).toBe('x');
  });
  it('maps header names case-insensitively and names a missing required column', () => {
    const header = new HeaderMap('c.csv', ['dot_number', 'Legal_Name'], ['DOT_NUMBER']);
    expect(header.reader(2, ['123', 'ACME']).text('LEGAL_NAME')).toBe('ACME');
    expect(() => new HeaderMap('c.csv', ['DOT_NUMBER'], ['DOT_NUMBER', 'LEGAL_NAME'])).toThrow('c.csv, row 1, field LEGAL_NAME: required column missing from header');
  });
  it('checks field counts of headerless rows and names bad values', () => {
    expect(() => positionalReader('f.txt', 7, ['a'], ['A', 'B'], 2)).toThrow(IngestError);
    const reader = positionalReader('f.txt', 7, ['x', '13/45/2020'], ['A', 'B'], 2);
    expect(() => reader.date('B')).toThrow('f.txt, row 7, field B: not a date: "13/45/2020"');
  });
  it('tells a header row from a data row', () => {
    expect(looksLikeHeader(['DOCKET_NUMBER', 'DOT_NUMBER'])).toBe(true);
    expect(looksLikeHeader(['MC012892', '02217388'])).toBe(false);
    expect(looksLikeHeader(['10278', 'LOGAN'])).toBe(false);
  });
});
