// RespCommandWriter (src/redis/resp-command.ts) writes a command's RESP bytes itself. Read back here by a strict
// RESP reader: every argument must come back exactly (UTF-8 and JSON escapes included), its declared length must
// be its byte length, whatever number of digits that takes (the writer guesses three and moves the argument
// otherwise), and growing the buffer past its first size must lose nothing.
import { describe, expect, it } from 'vitest';
import { RespCommandWriter } from '../../src/redis/resp-command.js';

/** The command's name and arguments, or throws when the bytes are not exactly one RESP array of bulk strings. */
function readCommand(wire: Buffer): string[] {
  let at = 0;
  const line = (): string => {
    const end = wire.indexOf('\r\n', at, 'latin1');
    if (end < 0) throw new Error(`no CRLF after ${at}`);
    const text = wire.toString('latin1', at, end);
    at = end + 2;
    return text;
  };
  const header = line();
  if (!/^\*[1-9][0-9]*$/.test(header)) throw new Error(`bad array header ${header}`);
  const parts: string[] = [];
  for (let index = 0; index < Number(header.slice(1)); index += 1) {
    const bulk = line();
    if (!/^\$(0|[1-9][0-9]*)$/.test(bulk)) throw new Error(`bad bulk header ${bulk}`);
    const length = Number(bulk.slice(1));
    parts.push(wire.toString('utf8', at, at + length));
    at += length;
    if (wire.toString('latin1', at, at + 2) !== '\r\n') throw new Error(`argument ${index} not followed by CRLF`);
    at += 2;
  }
  if (at !== wire.length) throw new Error(`${wire.length - at} bytes after the command`);
  return parts;
}

describe('RespCommandWriter', () => {
  it('writes the name, the key and whole arguments as one RESP array', () => {
    const writer = new RespCommandWriter('hset', 'p:decisions:1');
    writer.arg('field');
    writer.arg('');
    writer.arg('Ünïcødé ✓ 🚚');
    expect(writer.argumentCount).toBe(4);
    expect(readCommand(writer.finish())).toEqual(['hset', 'p:decisions:1', 'field', '', 'Ünïcødé ✓ 🚚']);
  });

  it('declares each argument\'s byte length across every digit count, moving it when the guess is wrong', () => {
    const lengths = [0, 1, 9, 10, 99, 100, 101, 999, 1000, 1001, 9999, 10_000, 70_000];
    const writer = new RespCommandWriter('hset', 'k', 64);
    const expected = ['hset', 'k'];
    for (const length of lengths) {
      const value = 'x'.repeat(length);
      writer.open();
      writer.text(value.slice(0, Math.floor(length / 2)));
      writer.bytes(Buffer.from(value.slice(Math.floor(length / 2))));
      writer.close();
      expected.push(value);
    }
    expect(readCommand(writer.finish())).toEqual(expected);
  });

  it('writes pieces as bytes, UTF-8 text and JSON strings, growing its buffer as needed', () => {
    const writer = new RespCommandWriter('hset', 'k', 64);
    const expected = ['hset', 'k'];
    for (let index = 0; index < 200; index += 1) {
      const awkward = index % 3 === 0 ? `load "${index}" \\ \n é 🚚` : `r${index}`;
      writer.arg(`id-${index}`);
      writer.open();
      writer.bytes(Buffer.from('[1,'));
      writer.jsonString(awkward);
      writer.text(`,${index},"Zürich"]`);
      writer.close();
      expected.push(`id-${index}`, `[1,${JSON.stringify(awkward)},${index},"Zürich"]`);
    }
    const parts = readCommand(writer.finish());
    expect(parts).toEqual(expected);
    expect(JSON.parse(parts[3] as string)).toEqual([1, 'load "0" \\ \n é 🚚', 0, 'Zürich']);
  });

  it('refuses to finish or open over an argument still open', () => {
    const writer = new RespCommandWriter('hset', 'k');
    writer.open();
    expect(() => writer.open()).toThrow(/already open/);
    expect(() => writer.finish()).toThrow(/still open/);
    writer.close();
    expect(() => writer.close()).toThrow(/no argument is open/);
  });
});
