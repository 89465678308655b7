// The service's own parts (buildParts: the same Authenticator, BudgetLimiter, EligibilityService with its carrier
// LRU, verdict templates and DecisionRecorder, Metrics and access-line logger that production composes), driven by
// one hand-written uWS handler for POST /v1/eligibility instead of the HTTP adapter (src/http/uws.ts) and the
// route (src/eligibility/route.ts). Issue 10's question it answers: how much of a cache-hot check's CPU is
// the adapter's and the route's generality (any route, any header, problem mapping, streams, speculative checks),
// and how much is the work itself. It answers the canonical request only (a cached key, a canonical body, an
// admitted draw); anything else gets a bare 500, which the bench would count. `BENCH_SCENARIOS=…,direct` runs it
// beside the service.
import uWS from 'uWebSockets.js';
import { buildParts } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { verdictHeadBlock } from '../src/eligibility/route.js';
import { parseEligibilityBody } from '../src/eligibility/body.js';
import { normaliseMcNumber } from '../src/core/mc-number.js';
import { createLogger, logRequest, type RequestLine } from '../src/log.js';
import type { DrawHandle } from '../src/ratelimit/budget.js';
import type { StoredApiKey } from '../src/auth/api-key.js';
import type { AuthResult } from '../src/auth/authenticate.js';
import { isUnrecorded, type VerdictWaiter } from '../src/eligibility/service.js';
import { serialiseVerdict, VerdictBytes, verdictOutput } from '../src/eligibility/verdict-bytes.js';
import type { Verdict } from '../src/core/verdict.js';
import { serveBenchStats, countCommands } from './child-stats.js';

const config = loadConfig(process.env);
const log = createLogger(config.LOG_LEVEL, config.ROLE);
const parts = buildParts(config, log);

const API_KEY = new TextEncoder().encode('x-api-key').buffer;
let sequence = 0;
const line: RequestLine = { request_id: '', method: 'POST', path: '/v1/eligibility', status: 200, duration_ms: 0, aborted: false };
let lastKey = '';
let keyOpening = Buffer.alloc(0);
let lastRest: string | Uint8Array = '';
let lastFlags = '';
let restBytes: Uint8Array = Buffer.alloc(0);

class Check implements VerdictWaiter {
  aborted = false;
  key: StoredApiKey | null = null;
  ticket = 0;
  draw: DrawHandle | null = null;
  readonly requestId = `d${(sequence += 1).toString(36)}`;
  readonly started = performance.now();

  constructor(readonly res: uWS.HttpResponse, readonly presented: string) {}

  begin(body: Buffer): void {
    const auth = parts.auth.authenticateCached(this.presented, 'eligibility', this.requestId);
    if (auth === undefined) {
      // A key's first request reads it from Redis (the general path); every later one is answered from the cache.
      parts.auth.authenticate(this.presented, 'eligibility', this.requestId).then((fresh) => this.admit(fresh, body), () => this.fail());
      return;
    }
    this.admit(auth, body);
  }

  admit(auth: AuthResult, body: Buffer): void {
    if (auth.kind !== 'ok') {
      this.fail();
      return;
    }
    const { key } = auth;
    this.key = key;
    this.ticket = parts.budget.enqueue(key.id, key.rate_per_minute);
    this.draw = parts.budget.pendingDraw(key.id);
    const parsed = parseEligibilityBody(body);
    const mc = normaliseMcNumber(parsed.mc_number) ?? parsed.mc_number;
    parts.eligibility.checkInto(mc, true, {
      kind: 'check', keyId: key.id, account: key.account, requestId: this.requestId, reference: null, jobId: null, row: null,
    }, this);
  }

  checked(verdict: Verdict): void {
    const settled = this.draw?.settled ?? null;
    if (settled === null) {
      void this.draw?.outcome.then(() => this.checked(verdict));
      return;
    }
    const budget = settled.decisionFor(this.ticket);
    if (!budget.allowed || this.aborted) {
      this.fail();
      return;
    }
    parts.metrics.countVerdict(verdict);
    const output = verdictOutput(verdict);
    // A cache-hot verdict's bytes are its template's, spliced in place; any other is sent as text.
    const { bytes } = output;
    const body = (bytes instanceof VerdictBytes ? bytes.ownBytes() : null) ?? bytes?.toString() ?? serialiseVerdict(verdict);
    const head = `200 OK\r\nx-request-id: ${this.requestId}\r\n${verdictHeadBlock(budget)}`;
    const { res } = this;
    res.cork(() => {
      res.writeStatus(head).end(body);
    });
    const keyId = this.key?.id ?? '';
    if (keyId !== lastKey) {
      lastKey = keyId;
      keyOpening = Buffer.from(`,"key_id":${JSON.stringify(keyId)},"decision_id":"`);
    }
    // The route's access-line members (mc_number, the verdict's, cache_hit, recorded), as bytes while they repeat.
    const flags = `,"cache_hit":${verdict.cache_hit},"recorded":${!isUnrecorded(verdict)}`;
    if (output.logRest !== lastRest || flags !== lastFlags) {
      lastRest = output.logRest;
      lastFlags = flags;
      restBytes = Buffer.concat([Buffer.from(`","mc_number":${output.logMc}`), typeof output.logRest === 'string' ? Buffer.from(output.logRest) : output.logRest,
        Buffer.from(flags)]);
    }
    line.request_id = this.requestId;
    line.duration_ms = Math.round((performance.now() - this.started) * 100) / 100;
    logRequest(log, line, undefined, [keyOpening, verdict.decision_id, restBytes]);
  }

  checkFailed(): void {
    this.fail();
  }

  fail(): void {
    if (this.aborted) return;
    this.res.cork(() => this.res.writeStatus('500 Internal Server Error').end());
  }
}

const app = uWS.App().post('/v1/eligibility', (res, req) => {
  const check = new Check(res, req.getHeader(API_KEY));
  res.onAborted(() => {
    check.aborted = true;
  });
  res.onData((chunk, isLast) => {
    // A canonical body arrives in one chunk (the bench's does); copied as the adapter copies it.
    const body = Buffer.allocUnsafe(chunk.byteLength);
    body.set(new Uint8Array(chunk));
    if (isLast) check.begin(body);
  });
});

// As startApp: the state's first load needs the connection.
if (parts.redis.status !== 'ready') await new Promise((resolve) => parts.redis.once('ready', resolve));
await parts.state.start();
const takeCommands = countCommands(parts.redis);
app.listen('127.0.0.1', Number(process.env.PORT ?? 0), (socket) => {
  if (!socket) throw new Error('direct uWS: cannot listen');
  serveBenchStats({ stop: () => parts.redis.disconnect(), takeCommands });
  process.send?.({ port: uWS.us_socket_local_port(socket) });
});
