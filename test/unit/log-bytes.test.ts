// The access line's byte writers (src/log-bytes.ts) must write exactly what the string path wrote: JSON.stringify
// of a string, String() of a number (JSON's null for NaN and infinities), UTF-8 of any text, including the inputs
// that leave their fast paths (escapes, non-ASCII, lone surrogates, numbers with more than two decimals).
import { describe, expect, it } from 'vitest';
import { jsonString, writeBytes, writeJsonString, writeNumber, writeText } from '../../src/log-bytes.js';

const target = Buffer.alloc(4096);

function written(write: (buffer: Buffer, offset: number) => number): string {
  target.fill(0xff);
  // Written at an offset, so a writer that ignores it or overruns its end is caught too.
  const end = write(target, 7);
  expect(target[6]).toBe(0xff);
  expect(target[end]).toBe(0xff);
  return target.subarray(7, end).toString('utf8');
}

/** A deterministic generator (mulberry32), so a failure names a reproducible case. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let value = Math.imul(state ^ (state >>> 15), 1 | state);
    value = (value + Math.imul(value ^ (value >>> 7), 61 | value)) ^ value;
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

describe('writeNumber', () => {
  it('writes what String() writes for durations rounded to 0.01 ms, statuses and every other number', () => {
    const next = random(1);
    const values = [0, 0.01, 0.07, 0.1, 0.29, 0.5, 1, 1.05, 1.5, 9.99, 10, 12.3, 200, 404, 1234.56, 99_999.99, 21_474_836.47,
      21_474_836.48, 1e9, 0.375, 0.001, -1, -0.01, 1e21, 1.7976931348623157e308, Number.MIN_VALUE];
    for (let index = 0; index < 20_000; index += 1) values.push(Math.round(next() * 10 ** (1 + (index % 9))) / 100);
    for (let index = 0; index < 2_000; index += 1) values.push(next() * 1000);
    for (const value of values) expect(written((buffer, at) => writeNumber(buffer, at, value)), String(value)).toBe(String(value));
  });

  it('writes null for NaN and infinities, as JSON does', () => {
    for (const value of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
      expect(written((buffer, at) => writeNumber(buffer, at, value))).toBe('null');
    }
  });
});

describe('writeJsonString and jsonString', () => {
  it('write what JSON.stringify writes, escapes, non-ASCII and lone surrogates included', () => {
    const next = random(2);
    const samples = ['', 'r1', 'rAbC.9z', 'a"b', 'a\\b', 'line\nbreak', '\u0000\u001f', '\u007f', 'é', 'Ñandú 運送 🚚', '\ud800', 'x\udc00y'];
    for (let index = 0; index < 5_000; index += 1) {
      let text = '';
      const length = Math.floor(next() * 40);
      // Mostly printable ASCII, now and then anything in the first 0x10000 code units (surrogates included).
      for (let char = 0; char < length; char += 1) text += String.fromCharCode(next() < 0.9 ? 0x20 + Math.floor(next() * 95) : Math.floor(next() * 0x10000));
      samples.push(text);
    }
    for (const text of samples) {
      expect(written((buffer, at) => writeJsonString(buffer, at, text))).toBe(JSON.stringify(text));
      expect(jsonString(text)).toBe(JSON.stringify(text));
    }
  });
});

describe('writeText and writeBytes', () => {
  it('write the UTF-8 of any text, and bytes as they are', () => {
    for (const text of ['', 'plain ascii', ',"tier":"preferred"', 'Zürich', '運送 🚚', 'a\ud800b', 'a piece longer than the loop copies, set() copies it']) {
      expect(written((buffer, at) => writeText(buffer, at, text))).toBe(Buffer.from(text, 'utf8').toString('utf8'));
      expect(written((buffer, at) => writeBytes(buffer, at, Buffer.from(text, 'utf8')))).toBe(Buffer.from(text, 'utf8').toString('utf8'));
    }
  });
});
