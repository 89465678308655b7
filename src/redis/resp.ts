// A command's RESP bytes (`*N`, then `$len` and the bytes of each argument), written straight into one buffer.
//
// What ioredis' Command.toWritable writes for string arguments, built differently: ioredis concatenates
// `"$" + Buffer.byteLength(arg) + "\r\n" + arg + "\r\n"` per argument into one string, which the socket's writev
// then flattens and encodes to UTF-8 again. The request path's coalesced commands carry two to four arguments per
// check (a record's id and text, a carrier read's bucket and MC number), and that string building was ~0.8 µs of a
// cache-cold check's ~32 in `perf` (toWritable, round 18 in bench/README.md). Here ASCII arguments (keys, ids,
// numbers, records: nearly all) are copied by a loop; anything else is measured and written by Buffer.write.
// test/unit/resp.test.ts compares the bytes with ioredis' own on generated arguments.

/** Up to this many code units a loop copies ASCII faster than Buffer.write's native call (as writeText). */
const LOOP_MAX = 64;

/** Writes `prefix`, the decimal digits of `value` (≥ 0) and CRLF. */
function writeHeader(out: Buffer, at: number, prefix: number, value: number): number {
  out[at] = prefix;
  let digits = 1;
  for (let rest = value; rest >= 10; rest = Math.floor(rest / 10)) digits += 1;
  let end = at + 1 + digits;
  let rest = value;
  do {
    end -= 1;
    out[end] = 0x30 + (rest % 10);
    rest = Math.floor(rest / 10);
  } while (rest > 0);
  const after = at + 1 + digits;
  out[after] = 0x0d;
  out[after + 1] = 0x0a;
  return after + 2;
}

/** Writes one bulk string (`$len\r\n…\r\n`) for `text`. Room: `text.length * 3 + 16`. */
function writeBulk(out: Buffer, at: number, text: string): number {
  const { length } = text;
  let end = -1;
  if (length <= LOOP_MAX) {
    const start = writeHeader(out, at, 0x24, length);
    end = start + length;
    for (let index = 0; index < length; index += 1) {
      const code = text.charCodeAt(index);
      if (code > 0x7f) {
        end = -1;
        break;
      }
      out[start + index] = code;
    }
  }
  if (end < 0) {
    // Long or not ASCII: its UTF-8 length first (a longer header, so written again from `at`).
    const start = writeHeader(out, at, 0x24, Buffer.byteLength(text, 'utf8'));
    end = start + out.write(text, start, 'utf8');
  }
  out[end] = 0x0d;
  out[end + 1] = 0x0a;
  return end + 2;
}

/** The RESP bytes of `name` with `args`, as ioredis writes a command of string arguments. */
export function encodeCommand(name: string, args: readonly string[]): Buffer {
  // A UTF-16 code unit is at most 3 UTF-8 bytes, and a header is at most 14 bytes ($, 10 digits, CRLF) plus CRLF after.
  let room = 16 + name.length * 3 + 16;
  for (let index = 0; index < args.length; index += 1) room += (args[index] as string).length * 3 + 16;
  const out = Buffer.allocUnsafe(room);
  let at = writeHeader(out, 0, 0x2a, args.length + 1);
  at = writeBulk(out, at, name);
  for (let index = 0; index < args.length; index += 1) at = writeBulk(out, at, args[index] as string);
  return out.subarray(0, at);
}
