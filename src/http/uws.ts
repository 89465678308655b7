// The only module that touches uWebSockets.js objects. uWS rules it follows: copy everything needed from the
// request before the first await (the request object dies when the handler returns), register onAborted before
// any await, cork every group of writes, and read bodies with a size cap.
import { STATUS_CODES } from 'node:http';
import { randomBytes } from 'node:crypto';
// Imported rather than read from globalThis: Node 20 defines the global `performance` as an accessor, so every
// request's two reads of it went through a getter (Builtins_LoadGlobalIC, 0.8 % of a cache-hot request in
// `perf`, round 6 in bench/HISTORY.md).
import { performance } from 'node:perf_hooks';
import uWS from 'uWebSockets.js';
import { AppError } from '../errors.js';
import { logRequest, type LinePart, type Logger, type RequestLine } from '../log.js';
import { utf8, writeBytes, writeText } from '../log-bytes.js';
import { toProblem } from './problem.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface HttpRequest {
  method: Method;
  path: string;
  query: string;
  headers: Readonly<Record<string, string>>;
  params: readonly string[];
  body: Buffer;
  requestId: string;
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
 * UTF-8; as bytes, the pieces are copied once into one reused buffer. uWS copies what end() is given before it
 * returns, so the buffer is free again for the next response.
 */
export interface ByteBody {
  /**
   * The whole body in a buffer the body owns, when it has one (a cache-hot verdict: its template's, spliced in
   * place), else null. It only has to stay unchanged until this response is sent: uWS copies it in end().
   */
  ownBytes?(): Uint8Array | null;
  /** Writes the body from offset 0 of `target`; returns its length, or -1 when it does not fit. */
  writeTo(target: Buffer): number;
  /** The same body as a string (used when it does not fit). */
  toString(): string;
}

/** The reused send buffer of ByteBody responses; a body larger than this is sent as a string. */
const SEND_BUFFER = Buffer.alloc(64 * 1024);
/**
 * The view of SEND_BUFFER handed to uWS for the last body length: a route's bodies mostly share a length (a
 * cache-hot verdict always has the same one), so the view object is reused instead of made per response.
 */
let sendView = SEND_BUFFER.subarray(0, 0);

/** A whole response's body: its bytes, else its text, else its JSON, else empty. */
function bodyOf(response: HttpResponse): string | Uint8Array {
  const { bytes } = response;
  if (bytes !== undefined) {
    const own = bytes.ownBytes?.() ?? null;
    if (own !== null) return own;
    const length = bytes.writeTo(SEND_BUFFER);
    if (length < 0) return bytes.toString();
    if (sendView.length !== length) sendView = SEND_BUFFER.subarray(0, length);
    return sendView;
  }
  if (response.text !== undefined) return response.text;
  return response.json !== undefined ? JSON.stringify(response.json) : '';
}

interface RouteShape {
  method: Method;
  pattern: string;
  maxBodyBytes: number;
  /**
   * Request headers (lower case) the handler reads. When given, only these are copied out of uWS into
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

/** The registry republish silently falls back to a JS shim when its binary fails to load; we refuse that. */
export function isNativeFunction(candidate: unknown): boolean {
  return typeof candidate === 'function' && /\{\s*\[native code\]\s*\}\s*$/.test(Function.prototype.toString.call(candidate));
}

export function assertNativeUws(app: unknown = uWS.App): void {
  if (!isNativeFunction(app)) {
    throw new Error('uWebSockets.js native binary did not load (JS fallback detected); refusing to start. '
      + 'Needs Node 20 on linux x64 with glibc ≥ 2.36: reinstall with `npm ci`.');
  }
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const statusLines = new Map<number, string>();
function statusLine(status: number): string {
  let line = statusLines.get(status);
  if (line === undefined) {
    line = `${status} ${STATUS_CODES[status] ?? 'Unknown'}`;
    statusLines.set(status, line);
  }
  return line;
}

/**
 * The head of a headBlock response (status line, x-request-id, the block) written as bytes into one reused buffer
 * and handed to writeStatus in place. As a string it was a concatenation made per response that uWS' native side
 * first flattened and then copied into a UTF-8 buffer (`String::WriteToFlat` under `Utf8Value`, 1.4 % of a
 * cache-hot check in `perf`, round 8 in bench/HISTORY.md). The pieces that repeat are bytes once: the status line
 * with the request id's name per status, the block per block string (the eligibility route makes a new one per
 * budget draw); the request id, checked against REQUEST_ID or generated here (ASCII), is copied by writeText.
 */
const HEAD_BUFFER = Buffer.alloc(4 * 1024);
/** As sendView: the view for the last head length, reused (a route's heads mostly share one length). */
let headView = HEAD_BUFFER.subarray(0, 0);
const headOpenings = new Map<number, Uint8Array>();
let lastHeadBlock: string | null = null;
let lastHeadBlockBytes: Uint8Array = new Uint8Array(0);

/** The head's bytes, or its text when it would not fit the buffer (a request id is at most 128 characters). */
function headOf(status: number, requestId: string, headBlock: string): Uint8Array | string {
  let opening = headOpenings.get(status);
  if (opening === undefined) {
    opening = utf8(`${statusLine(status)}\r\nx-request-id: `);
    headOpenings.set(status, opening);
  }
  if (headBlock !== lastHeadBlock) {
    lastHeadBlockBytes = utf8(`\r\n${headBlock}`);
    lastHeadBlock = headBlock;
  }
  if (opening.length + requestId.length * 3 + lastHeadBlockBytes.length > HEAD_BUFFER.length) {
    return `${statusLine(status)}\r\nx-request-id: ${requestId}\r\n${headBlock}`;
  }
  let end = writeBytes(HEAD_BUFFER, 0, opening);
  end = writeText(HEAD_BUFFER, end, requestId);
  end = writeBytes(HEAD_BUFFER, end, lastHeadBlockBytes);
  if (headView.length !== end) headView = HEAD_BUFFER.subarray(0, end);
  return headView;
}

const EMPTY_BODY = Buffer.alloc(0);
const TEXT_ENCODER = new TextEncoder();
// Header names handed to uWS as bytes: a string argument is converted to UTF-8 in a malloc'd copy on every call,
// bytes are read in place (three getHeader calls per request: 301 → 232 ns measured in a uWS handler).
const X_REQUEST_ID = TEXT_ENCODER.encode('x-request-id').buffer;
const CONTENT_LENGTH = TEXT_ENCODER.encode('content-length').buffer;
const NO_PARAMS: readonly string[] = Object.freeze([]);

// Request ids for requests that bring none: a random per-process prefix and a counter. Unique across replicas
// for practical purposes (48 random bits per process); a counter and a concatenation instead of
// crypto.randomUUID (150–430 ns per id in bench/micro). They only correlate log lines and records; not secrets.
const REQUEST_ID_PREFIX = `r${randomBytes(6).toString('base64url')}.`;
let requestSequence = 0;
function newRequestId(): string {
  requestSequence += 1;
  return REQUEST_ID_PREFIX + requestSequence.toString(36);
}
/** uWS ListenOptions.LIBUS_LISTEN_EXCLUSIVE_PORT (a declared enum with no runtime object in the package). */
const LIBUS_LISTEN_EXCLUSIVE_PORT = 1;

interface Exchange {
  res: uWS.HttpResponse;
  /** The route's slot in the server's request durations (-1 when the server counts none). */
  readonly slot: number;
  aborted: boolean;
  /** Set while a stream waits for the socket to drain, so an abort can release it. */
  wake?: () => void;
}

/** What an exchange answers through (the server's finish and error mapping, bound once per server). */
interface Answering {
  finish(exchange: Exchange, request: HttpRequest, started: number, response: HttpResponse): void;
  problem(error: unknown, request: HttpRequest): HttpResponse;
}

/** A request in flight: the uWS response, the request, and (for Route.handle) the Reply that answers it. */
class RequestExchange implements Exchange, Reply {
  aborted = false;
  wake?: () => void = undefined;
  request: HttpRequest | null = null;
  started = 0;
  private answered = false;

  constructor(readonly res: uWS.HttpResponse, readonly slot: number, private readonly answering: Answering) {}

  send(response: HttpResponse): void {
    // A second answer would write to a finished uWS response, which throws; a route bug must not do that.
    if (this.answered || this.request === null) return;
    this.answered = true;
    this.answering.finish(this, this.request, this.started, response);
  }

  fail(error: unknown): void {
    if (this.request === null) return;
    // Mapped (and an unexpected error logged) even when an answer already went out, so a late bug is still seen.
    const problem = this.answering.problem(error, this.request);
    this.send(problem);
  }
}

/**
 * The one response written by writeCorked. uWS runs a cork callback synchronously, so one module-level function
 * reading these fields replaces a fresh closure per response (an allocation, and a first call through V8's
 * lazy-compile stub for every new closure: Builtins_CompileLazy was 0.6 % of a cache-hot request in `perf`).
 */
const corked: { res: uWS.HttpResponse | null; head: string | Uint8Array; body: string | Uint8Array } = { res: null, head: '', body: '' };

function writeCorked(): void {
  const { res } = corked;
  if (res === null) return;
  res.writeStatus(corked.head);
  res.end(corked.body);
}

/** Writes the response; returns a promise only for a stream (undefined: written, or the client is gone). */
function writeResponse(exchange: Exchange, requestId: string, response: HttpResponse): Promise<void> | undefined {
  if (exchange.aborted) return undefined;
  const { res } = exchange;
  const { headBlock } = response;
  if (headBlock !== undefined && !response.stream) {
    // One native call for the status line and every header instead of one per header (six on the eligibility
    // route): uWS writes the status verbatim followed by CRLF, so the block rides along in it. The request id
    // is checked against REQUEST_ID (no CR/LF) or generated here.
    corked.res = res;
    corked.head = headOf(response.status, requestId, headBlock);
    corked.body = bodyOf(response);
    try {
      res.cork(writeCorked);
    } finally {
      corked.res = null;
      corked.head = '';
      corked.body = '';
    }
    return undefined;
  }
  const head = (contentType: string) => {
    res.writeStatus(statusLine(response.status));
    res.writeHeader('x-request-id', requestId);
    res.writeHeader('content-type', contentType);
    const { headers } = response;
    for (const name in headers) {
      if (name !== 'content-type') res.writeHeader(name, headers[name] as string);
    }
  };
  const contentType = response.headers?.['content-type'] ?? 'application/json';
  if (response.stream) return streamResponse(exchange, response.stream, () => head(contentType));
  const body = bodyOf(response);
  res.cork(() => {
    head(contentType);
    res.end(body);
  });
  return undefined;
}

async function streamResponse(exchange: Exchange, chunks: AsyncIterable<string>, head: () => void): Promise<void> {
  const { res } = exchange;
  res.cork(head);
  try {
    for await (const chunk of chunks) {
      if (exchange.aborted) return;
      let accepted = true;
      res.cork(() => {
        accepted = res.write(chunk);
      });
      if (!accepted) {
        // Backpressure: wait until uWS has drained its buffer (or the client went away) before producing more.
        await new Promise<void>((resolve) => {
          exchange.wake = resolve;
          res.onWritable(() => {
            resolve();
            return true;
          });
        });
        exchange.wake = undefined;
      }
    }
  } catch (error) {
    // The status line is already sent, so the only honest signal left is to cut the connection: the client sees
    // a truncated transfer instead of a report that silently lacks rows.
    if (!exchange.aborted) {
      exchange.aborted = true;
      res.close();
    }
    throw error;
  }
  if (!exchange.aborted) res.cork(() => res.end());
}

/**
 * Collects the request body (callback, not a promise: one less promise and closure per request) and reports
 * it once, or the payload_too_large error as soon as the cap is crossed.
 */
function readBody(exchange: Exchange, maxBytes: number, onBody: (error: AppError | null, body: Buffer) => void): void {
  let chunks: Buffer[] | null = null;
  let size = 0;
  exchange.res.onData((chunk, isLast) => {
    if (size < 0) return;
    size += chunk.byteLength;
    if (size > maxBytes) {
      size = -1;
      onBody(new AppError('payload_too_large', `Request body exceeds ${maxBytes} bytes.`), EMPTY_BODY);
      return;
    }
    // uWS reuses the chunk's memory after this callback returns, so copy it, into a slice of Node's buffer pool:
    // Buffer.from(chunk.slice(0)) gave every request body its own ArrayBuffer with a malloc'd backing store and
    // external-memory accounting (1,360 → 86 ns per 64-byte body in isolation, bench/HISTORY.md round 5). A small
    // body arrives as one chunk: no concat then.
    const copy = Buffer.allocUnsafe(chunk.byteLength);
    copy.set(new Uint8Array(chunk));
    if (isLast) {
      onBody(null, chunks === null ? copy : Buffer.concat([...chunks, copy]));
    } else {
      (chunks ??= []).push(copy);
    }
  });
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

export async function startHttpServer(routes: Route[], options: {
  host: string;
  port: number;
  log: Logger;
  /** Counts every answer's duration by route (absent: not counted). */
  durations?: RequestDurationSink;
}): Promise<HttpServer> {
  assertNativeUws();
  const app = uWS.App();
  let inFlight = 0;
  const { log, durations } = options;

  /** Answers, then writes the access line; the one exit of every request. */
  const finish = (exchange: Exchange, request: HttpRequest, started: number, response: HttpResponse): void => {
    let writing: Promise<void> | undefined;
    try {
      writing = writeResponse(exchange, request.requestId, response);
    } catch (error) {
      log.error({ err: error, request_id: request.requestId }, 'failed to write response');
    }
    if (writing === undefined) {
      done(exchange, request, started, response);
      return;
    }
    // Only a stream needs waiting for; a whole body is written synchronously (no microtask hop per request).
    writing.catch((error: unknown) => log.error({ err: error, request_id: request.requestId }, 'failed to write response'))
      .finally(() => done(exchange, request, started, response));
  };
  // One access-line object for every request: logRequest reads it synchronously and keeps nothing (its pino path
  // copies the fields), so filling it costs no allocation per request.
  const accessLine: RequestLine = { request_id: '', method: '', path: '', status: 0, duration_ms: 0, aborted: false };
  const done = (exchange: Exchange, request: HttpRequest, started: number, response: HttpResponse): void => {
    inFlight -= 1;
    const line = accessLine;
    line.request_id = request.requestId;
    line.method = request.method;
    line.path = request.path;
    line.status = response.status;
    const elapsedMs = performance.now() - started;
    durations?.observe(exchange.slot, elapsedMs);
    line.duration_ms = Math.round(elapsedMs * 100) / 100;
    line.aborted = exchange.aborted;
    logRequest(log, line, response.log, response.logParts);
  };
  const problemResponse = (error: unknown, request: HttpRequest): HttpResponse => {
    if (!(error instanceof AppError)) log.error({ err: error, request_id: request.requestId }, 'unhandled error');
    const problem = toProblem(error, request.path);
    return { status: problem.status, headers: problem.headers, json: problem.body };
  };
  const answering: Answering = { finish, problem: problemResponse };
  /** Runs the handler: in continuation form when the route has one, else one promise (the handler's own). */
  const run = (route: Route, exchange: RequestExchange, request: HttpRequest, started: number): void => {
    if (route.handle !== undefined) {
      exchange.request = request;
      exchange.started = started;
      try {
        route.handle(request, exchange);
      } catch (error) {
        exchange.fail(error);
      }
      return;
    }
    let pending: Promise<HttpResponse>;
    try {
      pending = route.handler(request);
    } catch (error) {
      finish(exchange, request, started, problemResponse(error, request));
      return;
    }
    pending.then(
      (response) => finish(exchange, request, started, response),
      (error: unknown) => finish(exchange, request, started, problemResponse(error, request)),
    );
  };

  const serve = (route: Route | null, allowed: Method[]) => {
    // Per-route work done once at registration instead of on every request.
    const paramCount = route ? route.pattern.split('/').filter((part) => part.startsWith(':')).length : 0;
    // Only the route's own: the adapter reads x-request-id and content-length into locals, where storing each under a
    // name chosen at run time was a megamorphic keyed store per header (0.9 % of a cache-hot request in `perf`).
    const wanted = route?.headers ? [...new Set(route.headers)].map((name) => ({ name, bytes: TEXT_ENCODER.encode(name).buffer })) : null;
    // A registered route knows its method, and a pattern without parameters or wildcards is its own path: two
    // native calls and two strings less per request. Only GET routes read a query string.
    const fixedPath = route && paramCount === 0 && !route.pattern.includes('*') ? route.pattern : null;
    const readsQuery = route === null || route.method === 'GET';
    const hasBody = route !== null && (route.method === 'POST' || route.method === 'PUT');
    // Requests no route takes (404, 405) share one series: their paths come from clients, so unbounded.
    const slot = durations?.slotOf(route ? route.method : 'any', route ? route.pattern : 'unmatched') ?? -1;
    return (res: uWS.HttpResponse, req: uWS.HttpRequest) => {
      const exchange = new RequestExchange(res, slot, answering);
      res.onAborted(() => {
        exchange.aborted = true;
        exchange.wake?.();
      });
      const started = performance.now();
      const headers: Record<string, string> = {};
      let incomingId: string;
      let contentLength: string;
      if (wanted) {
        // uWS answers '' for an absent header.
        incomingId = req.getHeader(X_REQUEST_ID);
        contentLength = req.getHeader(CONTENT_LENGTH);
        for (const { name, bytes } of wanted) {
          // Leaving an absent header out matches what forEach would have produced.
          const value = req.getHeader(bytes);
          if (value !== '') headers[name] = value;
        }
      } else {
        req.forEach((name, value) => {
          headers[name] = value;
        });
        incomingId = headers['x-request-id'] ?? '';
        contentLength = headers['content-length'] ?? '';
      }
      const method = route ? route.method : req.getCaseSensitiveMethod().toUpperCase() as Method;
      let params = NO_PARAMS;
      if (paramCount > 0) {
        const values: string[] = [];
        for (let index = 0; index < paramCount; index += 1) values.push(req.getParameter(index) ?? '');
        params = values;
      }
      const request: HttpRequest = {
        method,
        path: fixedPath ?? req.getUrl(),
        query: readsQuery ? req.getQuery() ?? '' : '',
        headers,
        params,
        body: EMPTY_BODY,
        requestId: incomingId !== '' && REQUEST_ID.test(incomingId) ? incomingId : newRequestId(),
      };
      inFlight += 1;
      if (!route) {
        finish(exchange, request, started, problemResponse(allowed.length > 0
          ? new AppError('method_not_allowed', `${method} is not allowed here; use ${allowed.join(', ')}.`, { headers: { allow: allowed.join(', ') } })
          : new AppError('route_not_found', `No endpoint at ${request.path}.`), request));
        return;
      }
      const declared = Number(contentLength);
      if (declared > route.maxBodyBytes) {
        finish(exchange, request, started, problemResponse(
          new AppError('payload_too_large', `Request body exceeds ${route.maxBodyBytes} bytes.`), request));
        return;
      }
      if (!hasBody) {
        run(route, exchange, request, started);
        return;
      }
      readBody(exchange, route.maxBodyBytes, (error, body) => {
        if (error) {
          finish(exchange, request, started, problemResponse(error, request));
          return;
        }
        request.body = body;
        run(route, exchange, request, started);
      });
    };
  };

  const patterns = new Map<string, Method[]>();
  for (const route of routes) {
    patterns.set(route.pattern, [...(patterns.get(route.pattern) ?? []), route.method]);
    const register = { GET: app.get, POST: app.post, PUT: app.put, DELETE: app.del }[route.method].bind(app);
    register(route.pattern, serve(route, []));
  }
  for (const [pattern, methods] of patterns) app.any(pattern, serve(null, methods));
  app.any('/*', serve(null, []));

  const listenSocket = await new Promise<uWS.us_listen_socket>((resolve, reject) => {
    // uSockets sets SO_REUSEPORT by default on Linux, so a second instance on a taken port would silently share
    // it and split the traffic. LIBUS_LISTEN_EXCLUSIVE_PORT (1) makes that listen fail instead. The native listen
    // takes (host, port, options, cb); the typings only declare the form without a host, hence the cast.
    const listen = app.listen.bind(app) as unknown as (host: string, port: number, options: number,
      cb: (socket: uWS.us_listen_socket | false) => void) => void;
    listen(options.host, options.port, LIBUS_LISTEN_EXCLUSIVE_PORT, (socket) => (socket ? resolve(socket) : reject(new Error(
      `cannot listen on ${options.host}:${options.port} (port already in use or address not available); refusing to start`))));
  });
  const port = uWS.us_socket_local_port(listenSocket);

  return {
    port,
    inFlight: () => inFlight,
    async close(graceMs: number) {
      uWS.us_listen_socket_close(listenSocket);
      const deadline = Date.now() + graceMs;
      while (inFlight > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    },
  };
}
