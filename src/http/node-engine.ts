// The node engine (HTTP_ENGINE=node): the same routes on node:http, with no native code. Answers match the uws
// engine's (status, x-request-id, content-type and the route's headers, body); the request head is parsed by
// Node's strict llhttp, which refuses every framing ambiguity (duplicate Content-Length, Content-Length with
// Transfer-Encoding, obs-fold, bare LF), and every refusal gets a status line and a closed connection at once.
// Pipelined requests are answered in order. docs/http.md has the table of cases per engine.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { AppError } from '../errors.js';
import { logRequest, type RequestLine } from '../log.js';
import {
  CLIENT_CLOSED_REQUEST, MAX_REQUEST_HEADERS, newRequestId, problemResponder, REQUEST_ID, statusLine, unmatched,
} from './common.js';
import type { HttpRequest, HttpResponse, HttpServer, Method, Peer, Reply, Route, ServerOptions } from './types.js';

/** Limits on a request, matching what the uws engine enforces (or, where uWS only stops answering, refusing). */
export const NODE_LIMITS = {
  /** Bytes of request line and header lines together (larger: 431; uWS resets such a connection). */
  maxHeaderBytes: 16 * 1024,
  /** Bytes of the request target (longer: 414). */
  maxUrlBytes: 8 * 1024,
  /** A request's head must arrive within this (slowloris); uWS' idle timeout is 10 s too. */
  headersTimeoutMs: 10_000,
  /** A whole request (head and body) must arrive within this. */
  requestTimeoutMs: 60_000,
  /** An idle socket (between requests, or a body that stalls) is closed after this: uWS' HTTP idle timeout. */
  idleTimeoutMs: 10_000,
} as const;

const EMPTY_BODY = Buffer.alloc(0);
const NO_PARAMS: readonly string[] = Object.freeze([]);
/** Scratch for ByteBody.writeTo; the bytes are copied out before the response is handed to the socket. */
const SCRATCH = Buffer.alloc(64 * 1024);
const ABANDONED: HttpResponse = { status: CLIENT_CLOSED_REQUEST };

/**
 * A whole response's body as bytes the socket may keep: Node queues what it cannot write at once by reference,
 * so a body in a reused buffer (ByteBody) is copied first.
 */
function bodyOf(response: HttpResponse): Buffer {
  const { bytes } = response;
  if (bytes !== undefined) {
    const own = bytes.ownBytes?.() ?? null;
    if (own !== null) return Buffer.from(own);
    const length = bytes.writeTo(SCRATCH);
    return length < 0 ? Buffer.from(bytes.toString()) : Buffer.from(SCRATCH.subarray(0, length));
  }
  if (response.text !== undefined) return Buffer.from(response.text);
  return response.json !== undefined ? Buffer.from(JSON.stringify(response.json)) : EMPTY_BODY;
}

/** A headBlock (`name: value` lines joined by CRLF) as header pairs; the last block is kept parsed. */
let lastBlock: string | null = null;
let lastBlockPairs: [string, string][] = [];
function blockPairs(block: string): [string, string][] {
  if (block !== lastBlock) {
    lastBlockPairs = block.split('\r\n').filter((line) => line !== '').map((line) => {
      const colon = line.indexOf(':');
      return [line.slice(0, colon).trim(), line.slice(colon + 1).trim()];
    });
    lastBlock = block;
  }
  return lastBlockPairs;
}

/** The response head in the uws engine's order: x-request-id, content-type, then the route's headers. */
function headerPairs(requestId: string, response: HttpResponse): [string, string][] {
  const pairs: [string, string][] = [['x-request-id', requestId]];
  if (response.headBlock !== undefined) {
    pairs.push(...blockPairs(response.headBlock));
    return pairs;
  }
  const { headers } = response;
  pairs.push(['content-type', headers?.['content-type'] ?? 'application/json']);
  for (const name in headers) {
    if (name !== 'content-type') pairs.push([name, headers[name] as string]);
  }
  return pairs;
}

interface CompiledRoute {
  route: Route;
  /** The pattern's segments; null where a segment is a parameter. */
  segments: (string | null)[];
  slot: number;
  wanted: readonly string[] | null;
  hasBody: boolean;
}

function segmentsOf(pattern: string): (string | null)[] {
  return pattern.split('/').map((part) => (part.startsWith(':') ? null : part));
}

/** The parameter values when `path` fits `segments`, else null. */
function match(segments: readonly (string | null)[], parts: readonly string[]): string[] | null {
  if (segments.length !== parts.length) return null;
  let params: string[] | null = null;
  for (let index = 0; index < segments.length; index += 1) {
    const expected = segments[index];
    if (expected === null) (params ??= []).push(parts[index] as string);
    else if (expected !== parts[index]) return null;
  }
  return params ?? [];
}

/** uWS' precedence: at the first segment where two patterns differ, a literal beats a parameter. */
function moreSpecific(a: readonly (string | null)[], b: readonly (string | null)[]): boolean {
  for (let index = 0; index < Math.min(a.length, b.length); index += 1) {
    if ((a[index] === null) !== (b[index] === null)) return a[index] !== null;
  }
  return false;
}

class NodeExchange implements Reply, Peer {
  aborted = false;
  /** Set while the body is still arriving: an abort then ends the request here, as no route will answer it. */
  abandon?: () => void = undefined;
  /** Set while a stream waits for the socket to drain, so an abort can release it. */
  wake?: () => void = undefined;
  request: HttpRequest | null = null;
  private answered = false;

  constructor(
    readonly res: ServerResponse,
    readonly slot: number,
    readonly started: number,
    private readonly finish: (exchange: NodeExchange, response: HttpResponse) => void,
    private readonly problem: (error: unknown, request: HttpRequest) => HttpResponse,
  ) {}

  send(response: HttpResponse): void {
    if (this.answered || this.request === null) return;
    this.answered = true;
    this.finish(this, response);
  }

  address(): string {
    return this.res.socket?.remoteAddress ?? '';
  }

  fail(error: unknown): void {
    if (this.request === null) return;
    this.send(this.problem(error, this.request));
  }
}

/** A refusal before any route runs: status line, no body, connection closed after it. */
function refuse(res: ServerResponse, status: number): void {
  res.shouldKeepAlive = false;
  res.writeHead(status, { 'content-length': '0', connection: 'close' });
  res.end();
}

/** What the parser refused, as RFC 9112 names it: 431 head too large, 505 unknown version, 408 too slow, else 400. */
function refusalStatus(code: string | undefined): number {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW': return 431;
    case 'HPE_INVALID_VERSION': return 505;
    case 'ERR_HTTP_REQUEST_TIMEOUT': return 408;
    default: return 400;
  }
}

export async function startNodeServer(routes: Route[], options: ServerOptions): Promise<HttpServer> {
  const { log, durations } = options;
  let inFlight = 0;
  const problem = problemResponder(log);

  const compiled: CompiledRoute[] = routes.map((route) => ({
    route,
    segments: segmentsOf(route.pattern),
    slot: durations?.slotOf(route.method, route.pattern) ?? -1,
    wanted: route.headers ? [...new Set(route.headers)] : null,
    // A DELETE reads a body only where its route takes one (a revocation names its actor and note).
    hasBody: route.method === 'POST' || route.method === 'PUT' || (route.method === 'DELETE' && route.maxBodyBytes > 0),
  }));
  const unmatchedSlot = durations?.slotOf('any', 'unmatched') ?? -1;
  const patterns = new Map<string, { segments: (string | null)[]; methods: Method[] }>();
  for (const { route, segments } of compiled) {
    const entry = patterns.get(route.pattern) ?? { segments, methods: [] };
    entry.methods.push(route.method);
    patterns.set(route.pattern, entry);
  }

  const accessLine: RequestLine = { request_id: '', method: '', path: '', status: 0, duration_ms: 0, aborted: false };
  const done = (exchange: NodeExchange, request: HttpRequest, response: HttpResponse): void => {
    inFlight -= 1;
    const line = accessLine;
    line.request_id = request.requestId;
    line.method = request.method;
    line.path = request.path;
    line.status = response.status;
    const elapsedMs = performance.now() - exchange.started;
    durations?.observe(exchange.slot, elapsedMs);
    line.duration_ms = Math.round(elapsedMs * 100) / 100;
    line.aborted = exchange.aborted;
    logRequest(log, line, response.log, response.logParts);
  };

  const write = (exchange: NodeExchange, request: HttpRequest, response: HttpResponse): Promise<void> | undefined => {
    if (exchange.aborted) return undefined;
    const { res } = exchange;
    const pairs = headerPairs(request.requestId, response);
    if (response.stream) return streamResponse(exchange, response.status, pairs, response.stream);
    const body = bodyOf(response);
    pairs.push(['content-length', String(body.length)]);
    res.writeHead(response.status, statusLine(response.status).slice(4), pairs.flat());
    res.end(body);
    return undefined;
  };

  const streamResponse = async (exchange: NodeExchange, status: number, pairs: [string, string][], chunks: AsyncIterable<string>): Promise<void> => {
    const { res } = exchange;
    res.writeHead(status, statusLine(status).slice(4), pairs.flat());
    try {
      for await (const chunk of chunks) {
        if (exchange.aborted) return;
        if (!res.write(chunk)) {
          await new Promise<void>((resolve) => {
            exchange.wake = resolve;
            res.once('drain', resolve);
          });
          exchange.wake = undefined;
        }
      }
    } catch (error) {
      // The status line is already sent: cutting the connection is the only honest signal of a truncated report.
      if (!exchange.aborted) {
        exchange.aborted = true;
        res.destroy();
      }
      throw error;
    }
    if (!exchange.aborted) res.end();
  };

  const finish = (exchange: NodeExchange, response: HttpResponse): void => {
    const request = exchange.request as HttpRequest;
    let writing: Promise<void> | undefined;
    try {
      writing = write(exchange, request, response);
    } catch (error) {
      log.error({ err: error, request_id: request.requestId }, 'failed to write response');
    }
    if (writing === undefined) {
      done(exchange, request, response);
      return;
    }
    writing.catch((error: unknown) => log.error({ err: error, request_id: request.requestId }, 'failed to write response'))
      .finally(() => done(exchange, request, response));
  };

  const run = (route: Route, exchange: NodeExchange, request: HttpRequest): void => {
    if (route.handle !== undefined) {
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
      exchange.fail(error);
      return;
    }
    pending.then((response) => exchange.send(response), (error: unknown) => exchange.fail(error));
  };

  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    const started = performance.now();
    // HTTP/1.1 only, as the uws engine: an HTTP/1.0 client gets 505 at once rather than a held connection there.
    if (req.httpVersion !== '1.1') return refuse(res, 505);
    if (req.rawHeaders.length / 2 > MAX_REQUEST_HEADERS) return refuse(res, 431);
    const url = req.url ?? '/';
    if (url.length > NODE_LIMITS.maxUrlBytes) return refuse(res, 414);
    const queryAt = url.indexOf('?');
    const path = queryAt < 0 ? url : url.slice(0, queryAt);
    const parts = path.split('/');
    let found: CompiledRoute | null = null;
    let params: string[] | null = null;
    for (const candidate of compiled) {
      if (candidate.route.method !== req.method) continue;
      const values = match(candidate.segments, parts);
      if (values !== null && (found === null || moreSpecific(candidate.segments, found.segments))) {
        found = candidate;
        params = values;
      }
    }
    // The first value of each header, as uWS' getHeader answers; only the route's own when it names them.
    const headers: Record<string, string> = {};
    const raw = req.rawHeaders;
    for (let index = 0; index < raw.length; index += 2) {
      const name = (raw[index] as string).toLowerCase();
      if (headers[name] === undefined && (found?.wanted == null || found.wanted.includes(name))) headers[name] = raw[index + 1] as string;
    }
    const incomingId = req.headers['x-request-id'];
    const exchange = new NodeExchange(res, found ? found.slot : unmatchedSlot, started, finish, problem);
    const request: HttpRequest = {
      method: found ? found.route.method : req.method ?? 'GET',
      path,
      query: found === null || found.route.method === 'GET' ? (queryAt < 0 ? '' : url.slice(queryAt + 1)) : '',
      headers,
      params: params === null || params.length === 0 ? NO_PARAMS : params,
      body: EMPTY_BODY,
      requestId: typeof incomingId === 'string' && REQUEST_ID.test(incomingId) ? incomingId : newRequestId(),
      peer: exchange,
    };
    exchange.request = request;
    inFlight += 1;
    res.once('close', () => {
      if (res.writableFinished) return;
      exchange.aborted = true;
      exchange.wake?.();
      exchange.abandon?.();
    });
    if (found === null) {
      let allowed: Method[] = [];
      let best: (string | null)[] | null = null;
      for (const { segments, methods } of patterns.values()) {
        if (match(segments, parts) !== null && (best === null || moreSpecific(segments, best))) {
          best = segments;
          allowed = methods;
        }
      }
      exchange.send(unmatched(request, allowed, problem));
      return;
    }
    const { route } = found;
    const declared = Number(req.headers['content-length'] ?? '');
    if (declared > route.maxBodyBytes) {
      // The body is not read, so the connection cannot carry another request.
      res.shouldKeepAlive = false;
      exchange.send(problem(new AppError('payload_too_large', `Request body exceeds ${route.maxBodyBytes} bytes.`), request));
      return;
    }
    if (!found.hasBody) {
      run(route, exchange, request);
      return;
    }
    exchange.abandon = () => {
      exchange.abandon = undefined;
      done(exchange, request, ABANDONED);
    };
    let chunks: Buffer[] | null = null;
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > route.maxBodyBytes) {
        req.off('data', onData);
        req.off('end', onEnd);
        exchange.abandon = undefined;
        res.shouldKeepAlive = false;
        exchange.send(problem(new AppError('payload_too_large', `Request body exceeds ${route.maxBodyBytes} bytes.`), request));
        return;
      }
      (chunks ??= []).push(chunk);
    };
    const onEnd = (): void => {
      exchange.abandon = undefined;
      if (exchange.aborted) return;
      request.body = chunks === null ? EMPTY_BODY : chunks.length === 1 ? chunks[0] as Buffer : Buffer.concat(chunks);
      run(route, exchange, request);
    };
    req.on('data', onData);
    req.on('end', onEnd);
  };

  const server = createServer({
    maxHeaderSize: NODE_LIMITS.maxHeaderBytes,
    headersTimeout: NODE_LIMITS.headersTimeoutMs,
    requestTimeout: NODE_LIMITS.requestTimeoutMs,
    keepAliveTimeout: NODE_LIMITS.idleTimeoutMs,
    connectionsCheckingInterval: 1000,
    // Explicit though they are Node's defaults: strict parsing, and no joining of duplicate headers.
    insecureHTTPParser: false,
    joinDuplicateHeaders: false,
    requireHostHeader: true,
  }, onRequest);
  server.timeout = NODE_LIMITS.idleTimeoutMs;
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    // A client that left (reset, or EOF mid-request) is owed nothing: closing the socket also ends a request
    // still reading its body (its access line says aborted), which waiting for an answer would never do.
    const parseError = error.code?.startsWith('HPE_') === true && error.code !== 'HPE_INVALID_EOF_STATE';
    if (!parseError && error.code !== 'ERR_HTTP_REQUEST_TIMEOUT' || !socket.writable) {
      socket.destroy();
      return;
    }
    const status = refusalStatus(error.code);
    // Answers still owed on this connection (requests pipelined before the bad one) go first, in order; the
    // refusal follows the last of them, and the connection closes after it.
    const refuseWhenNothingOwed = (): void => {
      const owed = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
      if (owed != null) {
        owed.once('finish', () => setImmediate(refuseWhenNothingOwed));
        return;
      }
      if (!socket.writable) {
        socket.destroy();
        return;
      }
      socket.end(`HTTP/1.1 ${statusLine(status)}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n`);
      socket.destroySoon();
    };
    refuseWhenNothingOwed();
  });

  await new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => reject(new Error(
      `cannot listen on ${options.host}:${options.port} (${error.code ?? error.message}: port already in use or address not available); refusing to start`));
    server.once('error', onError);
    // exclusive: a second instance on a taken port fails to listen instead of sharing it (as the uws engine).
    server.listen({ host: options.host, port: options.port, exclusive: true }, () => {
      server.off('error', onError);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : options.port;

  return {
    port,
    inFlight: () => inFlight,
    async close(graceMs: number) {
      server.close();
      server.closeIdleConnections();
      const deadline = Date.now() + graceMs;
      while (inFlight > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      server.closeAllConnections();
    },
  };
}
