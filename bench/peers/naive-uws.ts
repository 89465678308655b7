// Peer for the bench (issue 10): POST /v1/eligibility on uWebSockets.js written the naive way, i.e. what the
// service would be without its hot-path work. Per request: copy headers, read the body into a Buffer, JSON.parse
// + zod, SHA-256 key check, one rate-limiter-flexible Redis call, lru-cache lookup (HGET on a miss), decide(),
// a fresh verdict object + JSON.stringify, optional record SET, a pino access line (default sync destination).
// Started by bench/http-load.ts in its own process; speaks the bench IPC protocol (bench/child-stats.ts).
import { pino } from 'pino';
import uWS from 'uWebSockets.js';
import { z } from 'zod';
import { countCommands, serveBenchStats } from '../child-stats.js';
import { invalidJsonProblem, PeerCore, validationProblem, type PeerProblem } from './peer-core.js';

const core = new PeerCore();
await core.start();
const takeCommands = countCommands(core.redis);
const log = pino({ level: process.env.LOG_LEVEL ?? 'info' });

const bodySchema = z.object({
  mc_number: z.string().refine((value) => core.normalise(value) !== null, { message: 'must be 1–8 digits, optionally prefixed with MC' }),
});

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
  /** The access line's extra fields (the same ones the service logs for a verdict). */
  log?: Record<string, unknown>;
}

const STATUS: Record<number, string> = { 200: '200 OK', 400: '400 Bad Request', 401: '401 Unauthorized', 403: '403 Forbidden', 422: '422 Unprocessable Content', 429: '429 Too Many Requests', 500: '500 Internal Server Error' };

function fromProblem(problem: PeerProblem): Answer {
  return { status: problem.status, headers: { ...problem.headers, 'content-type': 'application/problem+json' }, body: problem.body };
}

async function handle(apiKey: string, requestId: string, body: Buffer): Promise<Answer> {
  const auth = await core.authenticate(apiKey || undefined);
  if (!auth.ok) return fromProblem(auth.problem);
  const limit = await core.limit(auth.key);
  if (!limit.ok) return fromProblem(limit.problem);
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch {
    return fromProblem(invalidJsonProblem());
  }
  const parsed = bodySchema.safeParse(value);
  if (!parsed.success) return fromProblem(validationProblem(parsed.error.issues.map((issue) => issue.message).join('; ')));
  const verdict = await core.evaluate(core.normalise(parsed.data.mc_number) ?? parsed.data.mc_number);
  await core.record(verdict, auth.key.id, requestId);
  return {
    status: 200, headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...limit.headers }, body: verdict,
    log: {
      key_id: auth.key.id, decision_id: verdict.decision_id, mc_number: verdict.mc_number, eligible: verdict.eligible, tier: verdict.tier,
      reasons: verdict.reasons, ruleset_version: verdict.ruleset_version, data_as_of: verdict.data_as_of, cache_hit: verdict.cache_hit,
    },
  };
}

const app = uWS.App().post('/v1/eligibility', (res, req) => {
  let aborted = false;
  res.onAborted(() => {
    aborted = true;
  });
  const started = performance.now();
  const headers: Record<string, string> = {};
  req.forEach((name, value) => {
    headers[name] = value;
  });
  const requestId = core.requestId(headers['x-request-id']);
  const chunks: Buffer[] = [];
  res.onData((chunk, isLast) => {
    chunks.push(Buffer.from(chunk.slice(0)));
    if (!isLast) return;
    handle(headers['x-api-key'] ?? '', requestId, Buffer.concat(chunks))
      .catch((): Answer => ({ status: 500, headers: { 'content-type': 'application/problem+json' }, body: { title: 'Internal Server Error', status: 500 } }))
      .then((answer) => {
        if (!aborted) {
          res.cork(() => {
            res.writeStatus(STATUS[answer.status] ?? String(answer.status));
            res.writeHeader('x-request-id', requestId);
            for (const [name, value] of Object.entries(answer.headers)) res.writeHeader(name, value);
            res.end(JSON.stringify(answer.body));
          });
        }
        log.info({ request_id: requestId, method: 'POST', path: '/v1/eligibility', status: answer.status, duration_ms: performance.now() - started, aborted, ...answer.log }, 'request');
      });
  });
});

app.listen('127.0.0.1', Number(process.env.PORT ?? 0), (socket) => {
  if (!socket) throw new Error('naive uWS: cannot listen');
  serveBenchStats({ stop: () => core.stop(), takeCommands });
  process.send?.({ port: uWS.us_socket_local_port(socket) });
});
