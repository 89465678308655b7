// The one logger factory. Structured JSON to stdout; secrets are censored by name as a second line of defence
// (the code never passes a plaintext key to the logger in the first place).
// Hot-path notes (bench/README.md): every request writes one access line, so the censoring is a cheap check of
// the top level and one level down rather than pino's path redaction (which re-parses its paths on every line
// and cost ~7% of a cache-hot request), the lines of one event-loop turn reach stdout as one chunk, and the
// access line has a fixed-shape writer that puts its bytes straight into that chunk (logRequest, src/log-bytes.ts).
import { pino, type Logger } from 'pino';
import { isoTimestamp } from './core/dates.js';
import { utf8, writeBytes, writeJsonString, writeNumber, writeText } from './log-bytes.js';

export type { Logger };

const CENSOR = '[redacted]';
/** Top-level fields that are censored whatever they hold. */
const SECRET_FIELDS = new Set(['key', 'api_key', 'secret']);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** True when a line carries something to censor: a secret field, a nested secret_sha256, or headers with x-api-key. */
function needsCensoring(line: Record<string, unknown>): boolean {
  for (const name in line) {
    if (SECRET_FIELDS.has(name)) return true;
    const value = line[name];
    if (isRecord(value) && ('secret_sha256' in value || (name === 'headers' && 'x-api-key' in value))) return true;
  }
  return false;
}

/** A censored shallow copy; the caller's objects are never modified. */
function censor(line: Record<string, unknown>): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const name in line) {
    const value = line[name];
    if (SECRET_FIELDS.has(name)) {
      copy[name] = CENSOR;
    } else if (isRecord(value) && 'secret_sha256' in value) {
      copy[name] = { ...value, secret_sha256: CENSOR, ...(name === 'headers' && 'x-api-key' in value ? { 'x-api-key': CENSOR } : {}) };
    } else if (name === 'headers' && isRecord(value) && 'x-api-key' in value) {
      copy[name] = { ...value, 'x-api-key': CENSOR };
    } else {
      copy[name] = value;
    }
  }
  return copy;
}

/** pino's isoTime, from the millisecond's shared ISO string (isoTimestamp) instead of a Date per line. */
let stampMs = -1;
let stamp = '';
function isoTime(): string {
  const now = Date.now();
  if (now !== stampMs) {
    stampMs = now;
    stamp = `,"time":"${isoTimestamp(now)}"`;
  }
  return stamp;
}

/**
 * What pino.destination returns (a SonicBoom, here in buffer mode); only the methods the batcher calls. Chunks
 * are whole lines of UTF-8, and each is the destination's to keep (the batcher never reuses a chunk it handed over).
 */
export interface Destination {
  write(chunk: Buffer): boolean;
  flush(callback?: (error?: Error) => void): void;
  flushSync(): void;
}

/** Bytes a turn's lines may fill before they are handed over early. */
const BATCH_BYTES = 16_384;

/**
 * Collects every line of one event-loop turn (pino's and the access lines) and hands them to the destination in
 * one write at the end of the turn, or earlier once 16 KiB are waiting. Each chunk costs the destination a system
 * call; fed once per turn (10–60 requests) instead of once per line, that is paid per turn (with the synchronous
 * destination below the log write left the cache-hot profile, where it had been 6–9 %). Lines are
 * encoded straight into one reused byte buffer as they come: collected as a string, a turn's lines were a rope
 * that SonicBoom flattened to measure and then encoded again, ~200 bytes of heap per request more. Lines keep their order: everything goes through here. On exit the pending lines are passed
 * on and flushed synchronously, as pino does for its own destination.
 */
class TurnBatcher {
  private readonly bytes = Buffer.allocUnsafe(BATCH_BYTES);
  private length = 0;
  private scheduled = false;
  private readonly drain = () => this.pass();

  constructor(private readonly destination: Destination) {
    if (!exitHooked) {
      exitHooked = true;
      process.once('exit', flushAllAtExit);
    }
    if (batchers.size >= 64) for (const ref of batchers) if (ref.deref() === undefined) batchers.delete(ref);
    batchers.add(new WeakRef(this));
  }

  /** At exit: pass on what is pending and write it synchronously. */
  exitFlush(): void {
    this.pass();
    try {
      this.destination.flushSync();
    } catch {
      // the destination is closed or still opening: nothing more can be done at exit
    }
  }

  write(line: string): boolean {
    // A UTF-16 code unit is at most 3 UTF-8 bytes, so this much room always holds the whole line.
    const at = this.reserve(line.length * 3);
    if (at < 0) {
      // A line too long for the buffer (a large error object) goes out on its own, after what was pending.
      this.destination.write(Buffer.from(line));
      return true;
    }
    this.commit(at + this.bytes.write(line, at));
    return true;
  }

  /** The buffer lines are written into (between reserve() and commit()). */
  get target(): Buffer {
    return this.bytes;
  }

  /**
   * Where a line of at most `room` bytes can be written into `target` now, passing on what is pending first if it
   * would not fit; -1 when it never fits (after what was pending is passed on). Call commit() with its end.
   */
  reserve(room: number): number {
    if (this.length + room > BATCH_BYTES) {
      this.pass();
      if (room > BATCH_BYTES) return -1;
    }
    return this.length;
  }

  /** Takes the line written from the reserved offset up to `end`. */
  commit(end: number): void {
    this.length = end;
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.drain);
    }
  }

  flush(callback?: (error?: Error) => void): void {
    this.pass();
    this.destination.flush(callback);
  }

  flushSync(): void {
    this.pass();
    this.destination.flushSync();
  }

  private pass(): void {
    this.scheduled = false;
    if (this.length === 0) return;
    // A copy the destination may keep: the buffer is reused for the next turn's lines.
    const chunk = Buffer.from(this.bytes.subarray(0, this.length));
    this.length = 0;
    this.destination.write(chunk);
  }
}

/** Every live batcher, flushed by one exit listener (weakly held: tests create many loggers). */
const batchers = new Set<WeakRef<TurnBatcher>>();
let exitHooked = false;

function flushAllAtExit(): void {
  for (const ref of batchers) ref.deref()?.exitFlush();
}

/** What logRequest needs of a logger made here (absent for other loggers). */
interface FastLine {
  writer: TurnBatcher;
  /** The line prefix after the timestamp (pino's bindings). */
  bindings: string;
  /**
   * Whether info lines are written, kept up to date by pino's level-change event. Asking the logger per line
   * (isLevelEnabled) read five properties of pino's dictionary-mode instance and prototypes, each a generic lookup
   * in optimised code (Builtins_LoadIC, 0.5 % of a cache-hot check in `perf`).
   */
  infoEnabled: boolean;
  /** `{"level":30,"time":"…"<bindings>,"request_id":` as bytes, for the millisecond `prefixMs`. */
  prefixMs: number;
  prefix: Uint8Array;
}
const fastLines = new WeakMap<Logger, FastLine>();

/** `destination` is for tests; by default stdout (one synchronous write per turn's chunk, see below). */
export function createLogger(level: string, role: string, destination?: Destination): Logger {
  const writer = new TurnBatcher(destination ?? pino.destination({
    dest: 1,
    // Synchronous (pino's own default): one write(2) per turn's chunk costs ~5 µs of this thread, whereas an
    // asynchronous fs.write hands each chunk to the libuv pool, and that hand-off cost 17–40 µs per chunk here
    // (6–9 % of a cache-hot request in the profile). Chunks of ≥ 4 KiB, flushed at least every
    // 100 ms, so a quiet replica's lines still show up promptly.
    sync: true,
    minLength: 4096,
    periodicFlush: 100,
    // Takes the batcher's UTF-8 chunks as they are (in utf8 mode it would decode them to a string again).
    // SonicBoom's typings declare write(string) only; in buffer mode it takes Buffers, hence the cast.
    contentMode: 'buffer',
  }) as unknown as Destination);
  const base = { service: 'carrier-eligibility', role };
  const log = pino({
    level,
    base,
    timestamp: isoTime,
    formatters: {
      log: (line) => (needsCensoring(line) ? censor(line) : line),
    },
  }, writer);
  const fast: FastLine = {
    writer, bindings: `,"service":"carrier-eligibility","role":${JSON.stringify(role)}`, infoEnabled: log.isLevelEnabled('info'),
    prefixMs: -1, prefix: new Uint8Array(0),
  };
  log.on('level-change', () => {
    fast.infoEnabled = log.isLevelEnabled('info');
  });
  fastLines.set(log, fast);
  return log;
}

/** The fields every access line starts with (src/http/uws.ts writes one per request). */
export interface RequestLine {
  request_id: string;
  method: string;
  path: string;
  status: number;
  duration_ms: number;
  aborted: boolean;
}

function jsonValue(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string': return JSON.stringify(value);
    case 'number': return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean': return value ? 'true' : 'false';
    case 'undefined': return undefined;
    default: return value === null ? 'null' : JSON.stringify(value);
  }
}

/**
 * A piece of an access line's extra members as given by a route: JSON text (`,"name":value…`, the pieces of one
 * line concatenated), either as a string or as its UTF-8 bytes encoded once (for pieces many lines repeat: a
 * route's per-key and per-verdict members). Anything taken from a request must be JSON-encoded by the route.
 */
export type LinePart = string | Uint8Array;

const LINE_FIELDS: ReadonlySet<string> = new Set(['request_id', 'method', 'path', 'status', 'duration_ms', 'aborted', 'msg']);

/** True when extra fields would replace one of the line's own (pino's merge keeps the first position). */
function overridesLine(extra: Record<string, unknown>): boolean {
  for (const name in extra) if (LINE_FIELDS.has(name)) return true;
  return false;
}

// `,"name":` per extra field name, built once: the eligibility route's ten names were JSON.stringify'd on every
// line: logRequest 1.73 µs → 1.13 µs in bench/micro. Bounded, as names come from code, not requests.
const keyPrefixes = new Map<string, string>();
function keyPrefix(name: string): string {
  let prefix = keyPrefixes.get(name);
  if (prefix === undefined) {
    prefix = `,${JSON.stringify(name)}:`;
    if (keyPrefixes.size < 1024) keyPrefixes.set(name, prefix);
  }
  return prefix;
}

/** The extra fields as JSON members (`,"name":value…`), skipping undefined ones as pino does. */
function extraMembers(extra: Record<string, unknown>): string {
  let text = '';
  for (const name in extra) {
    const value = jsonValue(extra[name]);
    if (value !== undefined) text += keyPrefix(name) + value;
  }
  return text;
}

// `,"method":…,"path":…,"status":…,"duration_ms":` of the last line, as bytes: a fixed route passes the same two
// strings and mostly the same status on every request (one piece copied instead of three written).
let lastMethod = '';
let lastPath = '';
let lastStatus = Number.NaN;
let lastRouteHead = utf8(',"method":"","path":"","status":null,"duration_ms":');
function routeHead(method: string, path: string, status: number): Uint8Array {
  if (method !== lastMethod || path !== lastPath || status !== lastStatus) {
    lastMethod = method;
    lastPath = path;
    lastStatus = status;
    lastRouteHead = utf8(`,"method":${JSON.stringify(method)},"path":${JSON.stringify(path)},"status":${jsonValue(status) ?? 'null'},"duration_ms":`);
  }
  return lastRouteHead;
}

const ABORTED = utf8(',"aborted":true');
const NOT_ABORTED = utf8(',"aborted":false');
const LINE_END = utf8(',"msg":"request"}\n');
/** Room for a number written by writeNumber. */
const NUMBER_ROOM = 24;

/** The line's opening up to the request id's value, for this millisecond (encoded once per millisecond). */
function linePrefix(fast: FastLine): Uint8Array {
  const now = Date.now();
  if (now !== fast.prefixMs) {
    fast.prefixMs = now;
    fast.prefix = utf8(`{"level":30,"time":"${isoTimestamp(now)}"${fast.bindings},"request_id":`);
  }
  return fast.prefix;
}

/**
 * Writes the access line `{level, time, service, role, ...line, ...extra, ...parts, msg: "request"}`, the same
 * line `log.info({...line, ...extra, ...parts}, 'request')` writes, as bytes straight into the turn's buffer
 * (src/log-bytes.ts says why and what it saved) instead of pino's per-field serialisation (pino's asJson was ~4 %
 * of a cache-hot request, about five times JSON.stringify of the same object). Lines with
 * anything to censor, and loggers not made by createLogger (tests' children), take pino's path.
 */
export function logRequest(log: Logger, line: RequestLine, extra?: Record<string, unknown>, parts?: readonly LinePart[]): void {
  const fast = fastLines.get(log);
  if (fast === undefined || (extra !== undefined && (needsCensoring(extra) || overridesLine(extra)))) {
    // Parts are parsed back for pino's path (tests' loggers, lines to censor; never the hot path).
    const rendered = parts ? JSON.parse(`{${partsText(parts).slice(1)}}`) as Record<string, unknown> : undefined;
    log.info({ ...line, ...extra, ...rendered }, 'request');
    return;
  }
  if (!fast.infoEnabled) return;
  const prefix = linePrefix(fast);
  const route = routeHead(line.method, line.path, line.status);
  const extraText = extra === undefined ? '' : extraMembers(extra);
  let room = prefix.length + line.request_id.length * 6 + 2 + route.length + NUMBER_ROOM
    + NOT_ABORTED.length + extraText.length * 3 + LINE_END.length;
  if (parts !== undefined) for (const part of parts) room += typeof part === 'string' ? part.length * 3 : part.length;
  const { writer } = fast;
  const start = writer.reserve(room);
  if (start < 0) {
    // Longer than the batch buffer (a huge extra field): written as one string, after what was pending.
    writer.write(lineText(fast, line, extraText, parts));
    return;
  }
  const target = writer.target;
  let at = writeBytes(target, start, prefix);
  at = writeJsonString(target, at, line.request_id);
  at = writeBytes(target, at, route);
  at = writeNumber(target, at, line.duration_ms);
  at = writeBytes(target, at, line.aborted ? ABORTED : NOT_ABORTED);
  if (extraText !== '') at = writeText(target, at, extraText);
  if (parts !== undefined) {
    for (const part of parts) at = typeof part === 'string' ? writeText(target, at, part) : writeBytes(target, at, part);
  }
  writer.commit(writeBytes(target, at, LINE_END));
}

function partsText(parts: readonly LinePart[]): string {
  let text = '';
  for (const part of parts) text += typeof part === 'string' ? part : Buffer.from(part).toString('utf8');
  return text;
}

/** The same line as a string (for a line too long for the batch buffer). */
function lineText(fast: FastLine, line: RequestLine, extraText: string, parts: readonly LinePart[] | undefined): string {
  return `{"level":30${isoTime()}${fast.bindings},"request_id":${JSON.stringify(line.request_id)}`
    + `,"method":${JSON.stringify(line.method)},"path":${JSON.stringify(line.path)},"status":${jsonValue(line.status)}`
    + `,"duration_ms":${jsonValue(line.duration_ms)},"aborted":${line.aborted ? 'true' : 'false'}${extraText}`
    + `${parts === undefined ? '' : partsText(parts)},"msg":"request"}\n`;
}
