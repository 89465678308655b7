// Turning a raw body into a typed value: 400 when it is not JSON (or nests deeper than MAX_JSON_DEPTH), 422 with
// field errors when the schema fails.
import type { z } from 'zod';
import { AppError, type FieldError } from '../errors.js';

/**
 * The deepest nesting of arrays and objects a request body may have. Every body the API takes is at most four
 * levels deep; JSON.parse of a 2 MB body of a million nested arrays held the event loop ~350 ms (health probes
 * waited as long), and the scan that refuses it first costs a few ms at most.
 */
export const MAX_JSON_DEPTH = 32;

const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Whether the bytes nest arrays and objects deeper than `max`, counted outside strings. Stops at the first
 * bracket past the limit, so a refused body costs only the bytes up to it. Says nothing about validity
 * (JSON.parse decides that); a body it passes nests at most `max` deep if it parses.
 */
export function nestsDeeperThan(body: Uint8Array, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < body.length; index += 1) {
    const byte = body[index];
    if (inString) {
      if (byte === BACKSLASH) index += 1;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) {
      inString = true;
    } else if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) {
      depth += 1;
      if (depth > max) return true;
    } else if (byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) {
      depth -= 1;
    }
  }
  return false;
}

export function parseJsonBody<T extends z.ZodType>(body: Buffer, schema: T): z.infer<T> {
  if (nestsDeeperThan(body, MAX_JSON_DEPTH)) {
    throw new AppError('invalid_json', `The request body nests arrays or objects more than ${MAX_JSON_DEPTH} levels deep.`);
  }
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch {
    throw new AppError('invalid_json', 'The request body must be a JSON document.');
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    throw new AppError('validation_failed', 'The request body does not match the expected shape.', {
      errors: toFieldErrors(parsed.error.issues),
    });
  }
  return parsed.data;
}

export function toFieldErrors(issues: readonly z.core.$ZodIssue[]): FieldError[] {
  return issues.slice(0, 20).map((issue) => ({
    path: issue.path.length > 0 ? issue.path.map(String).join('.') : '(body)',
    message: issue.message,
  }));
}
