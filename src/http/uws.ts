// The uws engine (HTTP_ENGINE=uws, the default): the only module that touches uWebSockets.js objects. uWS rules it
// follows: copy everything needed from the request before the first await (the request object dies when the
// handler returns), register onAborted before any await, cork every group of writes, and read bodies with a size
// cap. What it cannot do (uWS' own parser decides framing) is in docs/http.md.
// Imported rather than read from globalThis: Node 20 defines the global `performance` as an accessor, so every
// request's two reads of it went through a getter (Builtins_LoadGlobalIC, 0.8 % of a cache-hot request in
// `perf`).
import { performance } from 'node:perf_hooks';
import type * as uWST from 'uWebSockets.js';
import { AppError } from '../errors.js';
import { logRequest, type Logger, type RequestLine } from '../log.js';
import { utf8, writeBytes, writeText } from '../log-bytes.js';
import { CLIENT_CLOSED_REQUEST, newRequestId, problemResponder, REQUEST_ID, statusLine, unmatched } from './common.js';
import type { HttpRequest, HttpResponse, HttpServer, Method, Peer, Reply, Route, ServerOptions } from './types.js';
import { assertNativeUws as assertNative, loadUws } from './uws-binary.js';

// Routes and tests written against this module's names before the engines were split keep working.
export type {
  ByteBody, HttpRequest, HttpResponse, HttpServer, Method, Peer, Reply, RequestDurationSink, Route, RouteShape,
} from './types.js';
export { isNativeFunction } from './uws-binary.js';

// Throws (one line naming HTTP_ENGINE=node) when this Node's binary does not load; src/http/server.ts imports
// this module only when the uws engine is configured.
const uWS = loadUws();

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

/** The republish for Node 20 silently falls back to a JS shim when its binary fails to load; we refuse that. */
export function assertNativeUws(app: unknown = uWS.App): void {
  assertNative(app);
}

/**
 * The head of a headBlock response (status line, x-request-id, the block) written as bytes into one reused buffer
 * and handed to writeStatus in place. As a string it was a concatenation made per response that uWS' native side
 * first flattened and then copied into a UTF-8 buffer (`String::WriteToFlat` under `Utf8Value`, 1.4 % of a
 * cache-hot check in `perf`). The pieces that repeat are bytes once: the status line
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
/** What the access line records for a request whose client left before its body arrived. */
const ABANDONED: HttpResponse = { status: CLIENT_CLOSED_REQUEST };
const TEXT_ENCODER = new TextEncoder();
// Header names handed to uWS as bytes: a string argument is converted to UTF-8 in a malloc'd copy on every call,
// bytes are read in place (three getHeader calls per request: 301 → 232 ns measured in a uWS handler).
const X_REQUEST_ID = TEXT_ENCODER.encode('x-request-id').buffer;
const CONTENT_LENGTH = TEXT_ENCODER.encode('content-length').buffer;
const NO_PARAMS: readonly string[] = Object.freeze([]);

/** uWS ListenOptions.LIBUS_LISTEN_EXCLUSIVE_PORT (a declared enum with no runtime object in the package). */
const LIBUS_LISTEN_EXCLUSIVE_PORT = 1;

interface Exchange {
  res: uWST.HttpResponse;
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
class RequestExchange implements Exchange, Reply, Peer {
  aborted = false;
  wake?: () => void = undefined;
  /** Set while the body is still arriving: an abort then ends the request here, as no route will answer it. */
  abandon?: () => void = undefined;
  request: HttpRequest | null = null;
  started = 0;
  private answered = false;

  constructor(readonly res: uWST.HttpResponse, readonly slot: number, private readonly answering: Answering) {}

  send(response: HttpResponse): void {
    // A second answer would write to a finished uWS response, which throws; a route bug must not do that.
    if (this.answered || this.request === null) return;
    this.answered = true;
    this.answering.finish(this, this.request, this.started, response);
  }

  address(): string {
    // uWS throws on a response that was aborted or already ended.
    if (this.aborted || this.answered) return '';
    try {
      return Buffer.from(this.res.getRemoteAddressAsText()).toString('latin1');
    } catch {
      return '';
    }
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
const corked: { res: uWST.HttpResponse | null; head: string | Uint8Array; body: string | Uint8Array } = { res: null, head: '', body: '' };

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
    // external-memory accounting (1,360 → 86 ns per 64-byte body in isolation). A small
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

export async function startUwsServer(routes: Route[], options: ServerOptions): Promise<HttpServer> {
  assertNativeUws();
  const app = uWS.App();
  const server = new UwsExchanges(options.log, options.durations);
  registerRoutes(app, routes, server);
  const listenSocket = await listenExclusive(app, options.host, options.port);
  return {
    port: uWS.us_socket_local_port(listenSocket),
    inFlight: () => server.inFlight,
    close: (graceMs) => closeGracefully(listenSocket, server, graceMs),
  };
}

/** Per route, what its handler would otherwise work out on every request. */
interface RoutePlan {
  /** null: requests no route takes (404, 405), answered with `allowed` in Allow. */
  route: Route | null;
  allowed: Method[];
  paramCount: number;
  /** The route's own headers with their names as bytes; null: copy all of them. */
  wanted: Array<{ name: string; bytes: ArrayBuffer }> | null;
  /** The path when the pattern has no parameters or wildcards (it is then its own path). */
  fixedPath: string | null;
  readsQuery: boolean;
  hasBody: boolean;
  /** The route's slot in the request durations (-1: not counted). */
  slot: number;
}

function planRoute(route: Route | null, allowed: Method[], durations: ServerOptions['durations']): RoutePlan {
  const paramCount = route ? route.pattern.split('/').filter((part) => part.startsWith(':')).length : 0;
  return {
    route,
    allowed,
    paramCount,
    // Only the route's own: the adapter reads x-request-id and content-length into locals, where storing each under a
    // name chosen at run time was a megamorphic keyed store per header (0.9 % of a cache-hot request in `perf`).
    wanted: route?.headers ? [...new Set(route.headers)].map((name) => ({ name, bytes: TEXT_ENCODER.encode(name).buffer })) : null,
    // A registered route knows its method, and a pattern without parameters or wildcards is its own path: two
    // native calls and two strings less per request. Only GET routes read a query string.
    fixedPath: route && paramCount === 0 && !route.pattern.includes('*') ? route.pattern : null,
    readsQuery: route === null || route.method === 'GET',
    // A DELETE reads a body only where its route takes one (a revocation names its actor and note).
    hasBody: route !== null && (route.method === 'POST' || route.method === 'PUT' || (route.method === 'DELETE' && route.maxBodyBytes > 0)),
    // Requests no route takes (404, 405) share one series: their paths come from clients, so unbounded.
    slot: durations?.slotOf(route ? route.method : 'any', route ? route.pattern : 'unmatched') ?? -1,
  };
}

/** Each route under its method, a 405 answerer for every pattern's other methods, and a 404 for any other path. */
function registerRoutes(app: uWST.TemplatedApp, routes: Route[], server: UwsExchanges): void {
  const patterns = new Map<string, Method[]>();
  for (const route of routes) {
    patterns.set(route.pattern, [...(patterns.get(route.pattern) ?? []), route.method]);
    const register = { GET: app.get, POST: app.post, PUT: app.put, DELETE: app.del }[route.method].bind(app);
    register(route.pattern, server.handlerFor(route, []));
  }
  for (const [pattern, methods] of patterns) app.any(pattern, server.handlerFor(null, methods));
  app.any('/*', server.handlerFor(null, []));
}

// The native listen takes (host, port, options, cb); the typings declare the options only in the form without a
// host. Declared here, the way TypeScript extends a package's interface, so the call needs no cast.
declare module 'uWebSockets.js' {
  interface TemplatedApp {
    listen(host: RecognizedString, port: number, options: number, cb: (listenSocket: us_listen_socket | false) => void): TemplatedApp;
  }
}

/**
 * Listens on host:port alone. uSockets sets SO_REUSEPORT by default on Linux, so a second instance on a taken port
 * would silently share it and split the traffic; LIBUS_LISTEN_EXCLUSIVE_PORT makes that listen fail instead.
 */
function listenExclusive(app: uWST.TemplatedApp, host: string, port: number): Promise<uWST.us_listen_socket> {
  return new Promise((resolve, reject) => {
    app.listen(host, port, LIBUS_LISTEN_EXCLUSIVE_PORT, (socket) => (socket ? resolve(socket) : reject(new Error(
      `cannot listen on ${host}:${port} (port already in use or address not available); refusing to start`))));
  });
}

/** Stops accepting, then waits until no request is in flight or the grace has passed. */
async function closeGracefully(listenSocket: uWST.us_listen_socket, server: UwsExchanges, graceMs: number): Promise<void> {
  uWS.us_listen_socket_close(listenSocket);
  const deadline = Date.now() + graceMs;
  while (server.inFlight > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
}

/** Fills `headers` (the plan's headers, or all of them) and returns the x-request-id sent ('' when none). */
function readHeaders(req: uWST.HttpRequest, wanted: RoutePlan['wanted'], headers: Record<string, string>): string {
  if (wanted === null) {
    req.forEach((name, value) => {
      headers[name] = value;
    });
    return headers['x-request-id'] ?? '';
  }
  for (const { name, bytes } of wanted) {
    // uWS answers '' for an absent header; leaving it out matches what forEach would have produced.
    const value = req.getHeader(bytes);
    if (value !== '') headers[name] = value;
  }
  return req.getHeader(X_REQUEST_ID);
}

/** The Content-Length the client declared (0 when none). */
function declaredLength(req: uWST.HttpRequest, wanted: RoutePlan['wanted'], headers: Record<string, string>): number {
  return Number(wanted === null ? headers['content-length'] ?? '' : req.getHeader(CONTENT_LENGTH));
}

function readParams(req: uWST.HttpRequest, count: number): readonly string[] {
  if (count === 0) return NO_PARAMS;
  const values: string[] = [];
  for (let index = 0; index < count; index += 1) values.push(req.getParameter(index) ?? '');
  return values;
}

/** Everything the route needs, copied out of the uWS request (which dies when the handler returns). */
function readRequest(req: uWST.HttpRequest, plan: RoutePlan, headers: Record<string, string>, incomingId: string, peer: Peer): HttpRequest {
  return {
    method: plan.route ? plan.route.method : req.getCaseSensitiveMethod().toUpperCase(),
    path: plan.fixedPath ?? req.getUrl(),
    query: plan.readsQuery ? req.getQuery() ?? '' : '',
    headers,
    params: readParams(req, plan.paramCount),
    body: EMPTY_BODY,
    requestId: incomingId !== '' && REQUEST_ID.test(incomingId) ? incomingId : newRequestId(),
    peer,
  };
}

/** The requests in flight, and the one exit (answer, then access line) each of them takes. */
class UwsExchanges implements Answering {
  inFlight = 0;
  readonly problem: (error: unknown, request: HttpRequest) => HttpResponse;
  // One access-line object for every request: logRequest reads it synchronously and keeps nothing (its pino path
  // copies the fields), so filling it costs no allocation per request.
  private readonly accessLine: RequestLine = { request_id: '', method: '', path: '', status: 0, duration_ms: 0, aborted: false };

  constructor(private readonly log: Logger, private readonly durations: ServerOptions['durations']) {
    this.problem = problemResponder(log);
  }

  /** The uWS handler of one route (or of the requests no route takes). */
  handlerFor(route: Route | null, allowed: Method[]): (res: uWST.HttpResponse, req: uWST.HttpRequest) => void {
    const plan = planRoute(route, allowed, this.durations);
    return (res, req) => this.serve(plan, res, req);
  }

  private serve(plan: RoutePlan, res: uWST.HttpResponse, req: uWST.HttpRequest): void {
    const exchange = new RequestExchange(res, plan.slot, this);
    res.onAborted(() => {
      exchange.aborted = true;
      exchange.wake?.();
      exchange.abandon?.();
    });
    const started = performance.now();
    const headers: Record<string, string> = {};
    const incomingId = readHeaders(req, plan.wanted, headers);
    const request = readRequest(req, plan, headers, incomingId, exchange);
    this.inFlight += 1;
    const { route } = plan;
    if (!route) {
      this.finish(exchange, request, started, unmatched(request, plan.allowed, this.problem));
      return;
    }
    if (declaredLength(req, plan.wanted, headers) > route.maxBodyBytes) {
      this.finish(exchange, request, started, this.problem(
        new AppError('payload_too_large', `Request body exceeds ${route.maxBodyBytes} bytes.`), request));
      return;
    }
    if (plan.hasBody) this.receive(route, exchange, request, started);
    else this.run(route, exchange, request, started);
  }

  /** Reads the body, then runs the route; a client that leaves mid-body ends its request here. */
  private receive(route: Route, exchange: RequestExchange, request: HttpRequest, started: number): void {
    // A client that leaves mid-body never gets an answer; without this its request would count as in flight for
    // good, and every later shutdown would wait the whole grace for it.
    exchange.abandon = () => {
      exchange.abandon = undefined;
      this.done(exchange, request, started, ABANDONED);
    };
    readBody(exchange, route.maxBodyBytes, (error, body) => {
      exchange.abandon = undefined;
      if (error) {
        this.finish(exchange, request, started, this.problem(error, request));
        return;
      }
      request.body = body;
      this.run(route, exchange, request, started);
    });
  }

  /** Runs the handler: in continuation form when the route has one, else one promise (the handler's own). */
  private run(route: Route, exchange: RequestExchange, request: HttpRequest, started: number): void {
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
      this.finish(exchange, request, started, this.problem(error, request));
      return;
    }
    pending.then(
      (response) => this.finish(exchange, request, started, response),
      (error: unknown) => this.finish(exchange, request, started, this.problem(error, request)),
    );
  }

  /** Answers, then writes the access line; the one exit of every request. */
  finish(exchange: Exchange, request: HttpRequest, started: number, response: HttpResponse): void {
    let writing: Promise<void> | undefined;
    try {
      writing = writeResponse(exchange, request.requestId, response);
    } catch (error) {
      this.log.error({ err: error, request_id: request.requestId }, 'failed to write response');
    }
    if (writing === undefined) {
      this.done(exchange, request, started, response);
      return;
    }
    // Only a stream needs waiting for; a whole body is written synchronously (no microtask hop per request).
    writing.catch((error: unknown) => this.log.error({ err: error, request_id: request.requestId }, 'failed to write response'))
      .finally(() => this.done(exchange, request, started, response));
  }

  private done(exchange: Exchange, request: HttpRequest, started: number, response: HttpResponse): void {
    this.inFlight -= 1;
    const line = this.accessLine;
    line.request_id = request.requestId;
    line.method = request.method;
    line.path = request.path;
    line.status = response.status;
    const elapsedMs = performance.now() - started;
    this.durations?.observe(exchange.slot, elapsedMs);
    line.duration_ms = Math.round(elapsedMs * 100) / 100;
    line.aborted = exchange.aborted;
    logRequest(this.log, line, response.log, response.logParts);
  }
}
