// The one logger factory. Structured JSON to stdout; secrets are censored by name as a second line of defence
// (the code never passes a plaintext key to the logger in the first place).
// Hot-path notes (bench/README.md): every request writes one access line, so the censoring is a cheap check of
// the top level and one level down rather than pino's path redaction (which re-parses its paths on every line
// and cost ~7% of a cache-hot request), and stdout is written asynchronously in batches so a line never waits
// on write(2).
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

export function createLogger(level: string, role: string): Logger {
  return pino({
    level,
    base: { service: 'carrier-eligibility', role },
    timestamp: isoTime,
    formatters: {
      log: (line) => (needsCensoring(line) ? censor(line) : line),
    },
  }, pino.destination({
    dest: 1,
    sync: false,
    // Lines are gathered into writes of ≥ 4 KiB (one write(2) per ~15 access lines instead of one each) and
    // flushed at least every 100 ms, so a quiet replica's lines still show up promptly; pino flushes on exit.
    minLength: 4096,
    periodicFlush: 100,
  }));
}
