// encodeCommand (src/redis/resp.ts) must write exactly the bytes ioredis writes for the same command of string
// arguments: its Command.toWritable string, as the socket encodes it to UTF-8.
import { Command } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { encodeCommand } from '../../src/redis/resp.js';

function ioredisBytes(name: string, args: string[]): Buffer {
  const written = new Command(name, args).toWritable({});
  return typeof written === 'string' ? Buffer.from(written, 'utf8') : written;
}

/** A small deterministic generator (mulberry32), so a failure names a reproducible case. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = ['a', 'Z', '0', '9', ' ', '"', '\\', '\r', '\n', '\t', 'é', 'Ü', '✓', '運', '🚚', '\ud800', '\udc00', '{', ',', ':'];

function generated(random: () => number): string {
  // Lengths around the loop's limit and the header's digit boundaries too.
  const length = [0, 1, 9, 10, 11, 63, 64, 65, 99, 100, 101, 250, 1000][Math.floor(random() * 13)] as number;
  const asciiOnly = random() < 0.6;
  let text = '';
  while (text.length < length) {
    const piece = PIECES[Math.floor(random() * (asciiOnly ? 10 : PIECES.length))] as string;
    // Built by concatenation, as the callers' records are (a rope, not a flat string).
    text += piece;
  }
  return text;
}

describe('encodeCommand', () => {
  it('writes what ioredis writes for the commands the request path sends', () => {
    const record = `[1,"c","k1","acme","r-1",null,null,null,"v9","3.0",1,1,"preferred","",0,3,"2026-11-20T06:00:00Z",0,1,"12345"]`;
    const cases: Array<[string, string[]]> = [
      ['hset', ['cek:decisions:1764000000', '0194f7a0-0000-7000-8000-000000000000', record]],
      ['evalsha', ['0123456789abcdef0123456789abcdef01234567', '2', 'cek:snapshot:v9:c:12345', 'cek:snapshot:v9:c:7', '12345', '7']],
      ['set', ['cek:evidence', '{"carrier":{"legal_name":"Zürich Trucking ✓"}}', 'EX', '86400', 'NX']],
      ['ping', []],
      ['hset', ['k', '', '']],
    ];
    for (const [name, args] of cases) expect(encodeCommand(name, args)).toEqual(ioredisBytes(name, args));
  });

  it('writes what ioredis writes on 2,000 generated argument lists (ASCII, multi-byte, lone surrogates, ropes)', () => {
    const random = prng(18);
    for (let round = 0; round < 2000; round += 1) {
      const args = Array.from({ length: Math.floor(random() * 6) }, () => generated(random));
      expect(encodeCommand('hset', args)).toEqual(ioredisBytes('hset', args));
    }
  });
});
