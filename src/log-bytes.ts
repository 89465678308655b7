// Writers of JSON text straight into a byte buffer, for the access line (src/log.ts), the response head
// (headOf in src/http/uws.ts) and the pieces of a verdict's body
// (src/eligibility/service.ts). Each takes the target and an offset and returns the offset after what it wrote;
// the caller guarantees the room (see each bound).
//
// Why not a string encoded at the end: the line would be a rope of ~20 pieces that
// Buffer.write first measures (a walk of the rope), then flattens into a fresh ~330-byte string, then encodes;
// with the per-request pieces rendered as strings too (the request id through JSON.stringify, the duration through
// number-to-string), that access line was the largest single cost of a cache-hot check (LOG_LEVEL=warn saved
// 3–5 µs of ~30). Written piece by piece, the pieces that repeat are bytes encoded once
// and the ones that change are short ASCII copied by a loop, with no allocation: ~690 → ~460 ns per eligibility
// line in isolation (compiled), and ~0.75 µs less per cache-hot check in `perf` of the running service.

/** UTF-8 bytes of `text` (for the constant pieces, encoded once). */
export function utf8(text: string): Uint8Array {
  return Buffer.from(text, 'utf8');
}

/** Copies pre-encoded bytes. Room: `bytes.length`. */
export function writeBytes(target: Buffer, offset: number, bytes: Uint8Array): number {
  target.set(bytes, offset);
  return offset + bytes.length;
}

/**
 * Up to this many code units a JS loop copies ASCII faster than Buffer.write's native call; longer text (often a
 * rope of concatenations, which the loop would first have to flatten) goes to Buffer.write: a line whose extra
 * fields arrive as one ~250-character string took 1,935 ns with the loop, ~1,550 with Buffer.write (bench/micro).
 */
const LOOP_MAX = 48;

/**
 * Writes `text` as UTF-8: short ASCII (the per-request pieces: ids, times) copied code unit by code unit, anything
 * else by Buffer.write. Room: `text.length * 3` (a UTF-16 code unit is at most 3 UTF-8 bytes).
 */
export function writeText(target: Buffer, offset: number, text: string): number {
  const { length } = text;
  if (length > LOOP_MAX) return offset + target.write(text, offset, 'utf8');
  for (let index = 0; index < length; index += 1) {
    const code = text.charCodeAt(index);
    if (code > 0x7f) return offset + target.write(text, offset, 'utf8');
    target[offset + index] = code;
  }
  return offset + length;
}

/** True for a UTF-16 code unit JSON.stringify does not copy as it is (or that is not ASCII): control, `"`, `\`. */
function needsJsonCare(code: number): boolean {
  return code < 0x20 || code > 0x7e || code === 0x22 || code === 0x5c;
}

/**
 * `JSON.stringify(text)` as a string, quoted in place when nothing in it needs escaping (request ids always).
 * JSON.stringify is a call into C++: 1.4k of a cache-hot check's ~70k instructions under callgrind for a request
 * id of 15 characters in its decision record.
 */
export function jsonString(text: string): string {
  return isVerbatimJson(text) ? `"${text}"` : JSON.stringify(text);
}

/** True when `JSON.stringify(text)` is `text` between quotes (nothing in it to escape). */
export function isVerbatimJson(text: string): boolean {
  for (let index = 0; index < text.length; index += 1) {
    if (needsJsonCare(text.charCodeAt(index))) return false;
  }
  return true;
}

/**
 * Writes `JSON.stringify(text)`. A string with nothing to escape (printable ASCII without `"` or `\`: request ids
 * always, by the adapter's REQUEST_ID rule or its generator) is copied between quotes; anything else goes through
 * JSON.stringify. Room: `text.length * 6 + 2` (JSON escapes a code unit as at most six characters, `\u001f`).
 */
export function writeJsonString(target: Buffer, offset: number, text: string): number {
  const { length } = text;
  target[offset] = 0x22;
  for (let index = 0; index < length; index += 1) {
    const code = text.charCodeAt(index);
    if (needsJsonCare(code)) return writeText(target, offset, JSON.stringify(text));
    target[offset + 1 + index] = code;
  }
  target[offset + 1 + length] = 0x22;
  return offset + length + 2;
}

/** Writes a non-negative integer below 2³¹ in decimal. Room: 10. */
function writeDigits(target: Buffer, offset: number, value: number): number {
  let digits = 1;
  for (let rest = value; rest >= 10; rest = (rest / 10) | 0) digits += 1;
  let at = offset + digits;
  let rest = value;
  do {
    at -= 1;
    target[at] = 0x30 + (rest % 10);
    rest = (rest / 10) | 0;
  } while (rest > 0);
  return offset + digits;
}

/**
 * Writes a number as JSON.stringify does (and pino's access line did): a non-negative integer or a value with
 * at most two decimals (durations rounded to 0.01 ms, statuses) by integer arithmetic, which gives the same
 * shortest round-trip text as String() for these (the caller's value is exactly h / 100); anything else (larger,
 * negative, more decimals, NaN → null) through String(). Room: 24.
 */
export function writeNumber(target: Buffer, offset: number, value: number): number {
  const hundredths = Math.round(value * 100);
  if (!(hundredths >= 0 && hundredths < 2 ** 31 && hundredths / 100 === value)) {
    return writeText(target, offset, Number.isFinite(value) ? String(value) : 'null');
  }
  const whole = Math.floor(hundredths / 100);
  const fraction = hundredths - whole * 100;
  let at = writeDigits(target, offset, whole);
  if (fraction !== 0) {
    target[at] = 0x2e;
    target[at + 1] = 0x30 + Math.floor(fraction / 10);
    at += 2;
    if (fraction % 10 !== 0) {
      target[at] = 0x30 + (fraction % 10);
      at += 1;
    }
  }
  return at;
}
