// The HTTP adapter's interface: what a route sees (HttpRequest), answers (HttpResponse) and registers (Route),
// whichever engine (src/http/server.ts) runs it. Nothing here names an engine.
import type { LinePart, Logger } from '../log.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface HttpRequest {
  /** The route's method; for a request no route takes (404, 405), the method as sent, upper case. */
  method: string;
  path: string;
  query: string;
  headers: Readonly<Record<string, string>>;
  params: readonly string[];
  body: Buffer;
  requestId: string;
  /** The connection's far end; its address is read only when asked (limits on unauthenticated failures). */
  peer: Peer;
}

export interface Peer {
  /** The remote address as text ('' once the client is gone or the answer is sent). */
  address(): string;
}

export interface HttpResponse {
  status: number;
  headers?: Record<string, string>;
  /** JSON-serialisable body (sent as JSON), a ready string, or a stream of chunks. */
  json?: unknown;
  text?: string;
  /**
   * The response's header lines after x-request-id, pre-joined (`name: value` separated by CRLF, no trailing
   * CRLF), instead of `headers`. For hot routes that build the block once per state (the eligibility route: once
   * per budget draw); the values must never hold a CR or LF from a request. Must include content-type.
   */
  headBlock?: string;
  /** A body that writes its own bytes when sent, instead of `text` or `json`. */
  bytes?: ByteBody;
  stream?: AsyncIterable<string>;
  /** Extra fields for the access log line (decision id, reasons, key id; never secrets). */
  log?: Record<string, unknown>;
  /**
   * Extra access-line fields already rendered as JSON members (`,"key_id":"…"`, the parts concatenated), written
   * after `log`'s. For hot routes that render most of it once, as bytes (the eligibility route: per key and per
   * verdict template); anything taken from a request must be JSON-encoded by the route.
   */
  logParts?: readonly LinePart[];
}

/**
 * A body that writes its bytes straight into the adapter's send buffer. A verdict is ~3.4 KB of JSON spliced
 * from pre-encoded template pieces: as a string, every send first flattened the concatenation into a fresh
 * 3.4 KB heap string (most of a cache-hot request's allocation, so of its scavenges) and then encoded it to
 * UTF-8; as bytes, the pieces are copied once into one reused buffer. Each engine copies or sends what it is
 * given before the next response is written, so the buffer is free again for it.
 */
export interface ByteBody {
  /**
   * The whole body in a buffer the body owns, when it has one (a cache-hot verdict: its template's, spliced in
   * place), else null. It only has to stay unchanged until this response is written.
   */
  ownBytes?(): Uint8Array | null;
  /** Writes the body from offset 0 of `target`; returns its length, or -1 when it does not fit. */
  writeTo(target: Buffer): number;
  /** The same body as a string (used when it does not fit). */
  toString(): string;
}

export interface RouteShape {
  method: Method;
  pattern: string;
  maxBodyBytes: number;
  /**
   * Request headers (lower case) the handler reads. When given, only these are copied out of the engine into
   * `HttpRequest.headers`, each copy being a native call per request; when absent, all are.
   */
  headers?: readonly string[];
}

/**
 * A route answers either with the promise its `handler` returns, or in continuation form through the `reply` its
 * `handle` is given (the adapter's per-request exchange): a route whose waits are list entries (the eligibility
 * check) then costs no promise, reaction or closure per request.
 */
export type Route = RouteShape & (
  | { handler: (request: HttpRequest) => Promise<HttpResponse>; handle?: undefined }
  | { handle: (request: HttpRequest, reply: Reply) => void; handler?: undefined }
);

/** Where a route in continuation form (Route.handle) sends its one answer; the first call wins. */
export interface Reply {
  send(response: HttpResponse): void;
  /** Answers the error's problem response (AppError kinds), or a 500 for anything else. */
  fail(error: unknown): void;
}

/**
 * Where the adapter counts how long each answer took (Metrics.requestDurations): a slot per route taken once at
 * registration, then one observe() per answer, so counting costs an array increment, not a labelled lookup.
 */
export interface RequestDurationSink {
  slotOf(method: string, route: string): number;
  observe(slot: number, durationMs: number): void;
}

export interface HttpServer {
  port: number;
  inFlight(): number;
  /** Stops accepting connections and waits (up to graceMs) for in-flight requests to finish. */
  close(graceMs: number): Promise<void>;
}


export type HttpEngine = 'uws' | 'node';

export interface ServerOptions {
  host: string;
  port: number;
  log: Logger;
  /** Counts every answer's duration by route (absent: not counted). */
  durations?: RequestDurationSink;
}
