// The one logger factory. Structured JSON to stdout; secrets are censored by name as a second line of defence
// (the code never passes a plaintext key to the logger in the first place).
// Hot-path notes (bench/README.md): every request writes one access line, so the censoring is a cheap check of
// the top level and one level down rather than pino's path redaction (which re-parses its paths on every line
// and cost ~7% of a cache-hot request), stdout is written asynchronously in batches so a line never waits
// on write(2), the lines of one event-loop turn reach the destination as one chunk, and the access line has a
// fixed-shape writer (logRequest).
import { pino, type Logger } from 'pino';

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

/** pino's isoTime, formatted once per millisecond instead of once per line (many lines share a millisecond). */
let stampMs = -1;
let stamp = '';
function isoTime(): string {
  const now = Date.now();
  if (now !== stampMs) {
    stampMs = now;
    stamp = `,"time":"${new Date(now).toISOString()}"`;
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
 * destination below the log write left the cache-hot profile, where it had been 6–9 %, bench/README.md). Lines are
 * encoded straight into one reused byte buffer as they come: collected as a string, a turn's lines were a rope
 * that SonicBoom flattened to measure and then encoded again, ~200 bytes of heap per request more (round 4,
 * bench/README.md). Lines keep their order: everything goes through here. On exit the pending lines are passed
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
    const room = line.length * 3;
    if (this.length + room > BATCH_BYTES) {
      this.pass();
      if (room > BATCH_BYTES) {
        // A line too long for the buffer (a large error object) goes out on its own, after what was pending.
        this.destination.write(Buffer.from(line));
        return true;
      }
    }
    this.length += this.bytes.write(line, this.length);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.drain);
    }
    return true;
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

/** The line prefix after the timestamp (pino's bindings), per logger made here; absent for other loggers. */
const fastLines = new WeakMap<Logger, { writer: TurnBatcher; bindings: string }>();

/** `destination` is for tests; by default stdout, written asynchronously. */
export function createLogger(level: string, role: string, destination?: Destination): Logger {
  const writer = new TurnBatcher(destination ?? pino.destination({
    dest: 1,
    // Synchronous (pino's own default): one write(2) per turn's chunk costs ~5 µs of this thread, whereas an
    // asynchronous fs.write hands each chunk to the libuv pool, and that hand-off cost 17–40 µs per chunk here
    // (6–9 % of a cache-hot request in the profile, bench/README.md). Chunks of ≥ 4 KiB, flushed at least every
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
  fastLines.set(log, { writer, bindings: `,"service":"carrier-eligibility","role":${JSON.stringify(role)}` });
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
 * Writes the access line `{level, time, service, role, ...line, ...extra, msg: "request"}` — the same line
 * `log.info({...line, ...extra}, 'request')` writes — by concatenating a fixed shape instead of pino's
 * per-field serialisation (pino's asJson was ~4 % of a cache-hot request, about five times JSON.stringify of the
 * same object, bench/README.md). Lines with anything to censor, and loggers not made by createLogger (tests'
 * children), take pino's path.
 */
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

// `,"method":…,"path":…` of the last line: a fixed route passes the same two strings on every request.
let lastMethod = '';
let lastPath = '';
let lastMethodAndPath = '';
function methodAndPath(method: string, path: string): string {
  if (method !== lastMethod || path !== lastPath) {
    lastMethod = method;
    lastPath = path;
    lastMethodAndPath = `,"method":${JSON.stringify(method)},"path":${JSON.stringify(path)}`;
  }
  return lastMethodAndPath;
}

export function logRequest(log: Logger, line: RequestLine, extra?: Record<string, unknown>, extraJson?: string): void {
  const fast = fastLines.get(log);
  if (fast === undefined || (extra !== undefined && (needsCensoring(extra) || overridesLine(extra)))) {
    // Rendered members are parsed back for pino's path (tests' loggers, lines to censor; never the hot path).
    const rendered = extraJson ? JSON.parse(`{${extraJson.slice(1)}}`) as Record<string, unknown> : undefined;
    log.info({ ...line, ...extra, ...rendered }, 'request');
    return;
  }
  if (!log.isLevelEnabled('info')) return;
  let text = `{"level":30${isoTime()}${fast.bindings},"request_id":${JSON.stringify(line.request_id)}${methodAndPath(line.method, line.path)}`
    + `,"status":${line.status},"duration_ms":${jsonValue(line.duration_ms)},"aborted":${line.aborted ? 'true' : 'false'}`;
  if (extra !== undefined) {
    for (const name in extra) {
      const value = jsonValue(extra[name]);
      if (value !== undefined) text += keyPrefix(name) + value;
    }
  }
  if (extraJson !== undefined) text += extraJson;
  fast.writer.write(`${text},"msg":"request"}\n`);
}
