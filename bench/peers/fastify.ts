// Peer for the bench (issue 10): POST /v1/eligibility on Fastify, written idiomatically: logger off, the body
// validated by a JSON schema (ajv), the 200 response serialised from a response schema (fast-json-stringify),
// auth and the rate limit in an onRequest hook (so the 401 → 429 → 400/422 order matches the service), the
// same per-request work as the naive uWS peer (bench/peers/peer-core.ts). Node's http server underneath.
// Started by bench/http-load.ts in its own process; speaks the bench IPC protocol (bench/child-stats.ts).
import Fastify from 'fastify';
import type { StoredApiKey } from '../../src/auth/api-key.js';
import { countCommands, serveBenchStats } from '../child-stats.js';
import { MC_PATTERN, PeerCore, validationProblem, type PeerProblem } from './peer-core.js';

const core = new PeerCore();
await core.start();
const takeCommands = countCommands(core.redis);

declare module 'fastify' {
  interface FastifyRequest {
    apiKey: StoredApiKey | null;
    peerLimitHeaders: Record<string, string>;
  }
}

const nullable = (type: string) => ({ type: [type, 'null'] });
/** A reason's facts and rule thresholds: values of several types, serialised as they are. */
const factsSchema = { type: 'object', additionalProperties: true } as const;
const evidenceSchema = {
  type: 'object',
  properties: {
    snapshot_version: nullable('string'),
    reasons: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          reason: { type: 'string' }, source: { type: 'string' }, record_id: nullable('string'), facts: factsSchema,
          rule: { type: ['object', 'null'], additionalProperties: true },
        },
      },
    },
    sources: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          source: { type: 'string' }, present: { type: 'boolean' }, as_of: nullable('string'), as_of_from: nullable('string'),
          ingested_at: nullable('string'), rows: { type: 'integer' },
          files: {
            type: 'array',
            items: {
              type: 'object',
              properties: { name: { type: 'string' }, sha256: nullable('string'), bytes: nullable('integer'), rows: nullable('integer') },
            },
          },
        },
      },
    },
  },
} as const;
const verdictSchema = {
  type: 'object',
  properties: {
    eligible: { type: 'boolean' }, found: { type: 'boolean' }, tier: nullable('string'),
    reasons: { type: 'array', items: { type: 'string' } }, degraded: { type: 'boolean' }, decision_id: { type: 'string' },
    ruleset_version: nullable('integer'), data_as_of: nullable('string'), evaluated_at: { type: 'string' },
    cache_hit: { type: 'boolean' }, mc_number: { type: 'string' },
    carrier: {
      type: ['object', 'null'],
      properties: { dot_number: nullable('string'), legal_name: { type: 'string' }, dba_name: nullable('string') },
    },
    evidence: evidenceSchema,
  },
} as const;

const app = Fastify({
  logger: false,
  genReqId: (request) => core.requestId(request.headers['x-request-id'] as string | undefined),
  bodyLimit: 4096,
});
app.decorateRequest('apiKey', null);
// Declared up front (Fastify's advice) so every request object has the same shape; set per request in onRequest.
app.decorateRequest('peerLimitHeaders', null as unknown as Record<string, string>);

function sendProblem(reply: import('fastify').FastifyReply, problem: PeerProblem) {
  return reply.code(problem.status).headers(problem.headers).type('application/problem+json').send(problem.body);
}

app.addHook('onRequest', async (request, reply) => {
  reply.header('x-request-id', request.id);
  const auth = await core.authenticate(request.headers['x-api-key'] as string | undefined);
  if (!auth.ok) return sendProblem(reply, auth.problem);
  const limit = await core.limit(auth.key);
  if (!limit.ok) return sendProblem(reply, limit.problem);
  request.apiKey = auth.key;
  request.peerLimitHeaders = limit.headers;
  return undefined;
});

app.setErrorHandler((error: { validation?: unknown; statusCode?: number; message: string }, _request, reply) => {
  if (error.validation) return sendProblem(reply, validationProblem(error.message));
  const status = error.statusCode ?? 500;
  return reply.code(status).type('application/problem+json').send({ type: 'about:blank', title: error.message, status });
});

app.post<{ Body: { mc_number: string } }>('/v1/eligibility', {
  schema: {
    body: { type: 'object', required: ['mc_number'], properties: { mc_number: { type: 'string', pattern: MC_PATTERN } } },
    response: { 200: verdictSchema },
  },
}, async (request, reply) => {
  const verdict = await core.evaluate(core.normalise(request.body.mc_number) ?? request.body.mc_number);
  await core.record(verdict, request.apiKey?.id ?? '', request.id);
  reply.headers({ 'cache-control': 'no-store', ...request.peerLimitHeaders });
  return verdict;
});

const address = await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 0) });
serveBenchStats({ stop: async () => { await app.close(); await core.stop(); }, takeCommands });
process.send?.({ port: Number(new URL(address).port) });
