// What both HTTP engines share, so their answers match byte for byte: request ids, status lines, the answer to
// a request no route takes (404/405, HEAD without a body), error mapping, and the limits on a request's head.
import { randomBytes } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import { AppError } from '../errors.js';
import type { Logger } from '../log.js';
import { toProblem } from './problem.js';
import type { HttpRequest, HttpResponse } from './types.js';

/** A client's x-request-id is kept only when it matches this (no CR/LF, bounded); else one is generated. */
export const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

// Request ids for requests that bring none: a random per-process prefix and a counter. Unique across replicas
// for practical purposes (48 random bits per process); a counter and a concatenation instead of
// crypto.randomUUID (150–430 ns per id in bench/micro). They only correlate log lines and records; not secrets.
const REQUEST_ID_PREFIX = `r${randomBytes(6).toString('base64url')}.`;
let requestSequence = 0;
export function newRequestId(): string {
  requestSequence += 1;
  return REQUEST_ID_PREFIX + requestSequence.toString(36);
}

const statusLines = new Map<number, string>();
/** `200 OK`: the status line without the protocol. */
export function statusLine(status: number): string {
  let line = statusLines.get(status);
  if (line === undefined) {
    line = `${status} ${STATUS_CODES[status] ?? 'Unknown'}`;
    statusLines.set(status, line);
  }
  return line;
}

/**
 * The most header lines a request may carry. uWebSockets.js parses at most this many and stops answering past
 * it; the node engine answers 431 past it, so a request either engine serves is served by both.
 */
export const MAX_REQUEST_HEADERS = 48;

/** The access line's status for a request whose client left before its body arrived (nginx's convention). */
export const CLIENT_CLOSED_REQUEST = 499;

/** Maps a thrown value to its problem response; anything but an AppError is logged as unhandled. */
export function problemResponder(log: Logger): (error: unknown, request: HttpRequest) => HttpResponse {
  return (error, request) => {
    if (!(error instanceof AppError)) log.error({ err: error, request_id: request.requestId }, 'unhandled error');
    const problem = toProblem(error, request.path);
    return { status: problem.status, headers: problem.headers, json: problem.body };
  };
}

/**
 * The answer to a request no route takes: 405 with Allow when the path has routes for other methods, else 404.
 * A HEAD request gets the same status and headers without a body (RFC 9110 §9.3.2), so a keep-alive client that
 * frames by it never reads a body as the next response.
 */
export function unmatched(request: HttpRequest, allowed: readonly string[], problem: (error: unknown, request: HttpRequest) => HttpResponse): HttpResponse {
  const { method } = request;
  const response = problem(allowed.length > 0
    ? new AppError('method_not_allowed', `${method} is not allowed here; use ${allowed.join(', ')}.`, { headers: { allow: allowed.join(', ') } })
    : new AppError('route_not_found', `No endpoint at ${request.path}.`), request);
  return method === 'HEAD' ? { status: response.status, headers: response.headers, text: '' } : response;
}
