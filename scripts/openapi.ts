// Builds src/http/openapi.json from the code's own tables (reason codes, problem kinds, config-free contract), so
// the published document cannot drift from what the service does. Run: npm run openapi
import { writeFileSync } from 'node:fs';
import { REASON_CODES } from '../src/core/reasons.js';
import { ERROR_KINDS } from '../src/errors.js';
import { PROBLEMS } from '../src/http/problem.js';
import { SERVICE_VERSION } from '../src/app.js';

const problemRef = { $ref: '#/components/responses/Problem' };
const outcomes = ['eligible', 'review', 'hard_stop', 'not_found', 'not_screened', 'error'];
const statuses = (...codes: number[]) => Object.fromEntries(codes.map((code) => [String(code), problemRef]));

const document = {
  openapi: '3.1.0',
  info: {
    title: 'Carrier Eligibility Decision Service',
    version: '1.0.0',
    'x-service-version': SERVICE_VERSION,
    description: 'Fail-closed carrier eligibility verdicts by MC number, and asynchronous roster screening with a CSV report.',
  },
  servers: [{ url: '/' }],
  components: {
    securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } },
    schemas: {
      ReasonCode: { type: 'string', enum: REASON_CODES },
      ProblemCode: { type: 'string', enum: ERROR_KINDS },
      Verdict: {
        type: 'object',
        required: ['eligible', 'found', 'tier', 'reasons', 'degraded', 'decision_id', 'ruleset_version', 'data_as_of', 'evaluated_at', 'cache_hit', 'mc_number', 'carrier', 'evidence'],
        properties: {
          eligible: { type: 'boolean' },
          found: { type: 'boolean' },
          tier: { type: ['string', 'null'], enum: ['preferred', 'standard', 'conditional', 'blocked', null] },
          reasons: { type: 'array', items: { $ref: '#/components/schemas/ReasonCode' } },
          degraded: { type: 'boolean' },
          decision_id: { type: 'string', format: 'uuid', description: 'UUIDv7 (RFC 9562)' },
          ruleset_version: { type: ['integer', 'null'] },
          data_as_of: { type: ['string', 'null'], format: 'date-time' },
          evaluated_at: { type: 'string', format: 'date-time' },
          cache_hit: { type: 'boolean' },
          mc_number: { type: 'string' },
          carrier: {
            type: ['object', 'null'],
            properties: { dot_number: { type: ['string', 'null'] }, legal_name: { type: 'string' }, dba_name: { type: ['string', 'null'] } },
          },
          evidence: { $ref: '#/components/schemas/Evidence' },
        },
      },
      Fact: { type: ['string', 'number', 'boolean', 'null', 'array'], items: { type: 'string' } },
      Evidence: {
        type: 'object',
        description: 'Per reason the source and record behind it; every source screened against with its as-of and file SHA-256 (docs/decisions.md).',
        required: ['snapshot_version', 'reasons', 'sources'],
        properties: {
          snapshot_version: { type: ['string', 'null'] },
          reasons: {
            type: 'array',
            items: {
              type: 'object',
              required: ['reason', 'source', 'record_id', 'facts', 'rule'],
              properties: {
                reason: { $ref: '#/components/schemas/ReasonCode' },
                source: { type: 'string', description: 'a snapshot source (census, authority, insurance, insurance_history, revocations, oos, ofac_sdn, ofac_cons, sam, dnu) or dnu_live, snapshot, ruleset, service' },
                record_id: { type: ['string', 'null'], description: 'the source\'s own id: OFAC ent_num, SAM number, USDOT number, MC docket' },
                facts: { type: 'object', additionalProperties: { $ref: '#/components/schemas/Fact' } },
                rule: { type: ['object', 'null'], additionalProperties: { $ref: '#/components/schemas/Fact' } },
              },
            },
          },
          sources: {
            type: 'array',
            items: {
              type: 'object',
              required: ['source', 'present', 'as_of', 'as_of_from', 'ingested_at', 'rows', 'files'],
              properties: {
                source: { type: 'string' }, present: { type: 'boolean' }, as_of: { type: ['string', 'null'] }, as_of_from: { type: ['string', 'null'] },
                ingested_at: { type: ['string', 'null'] }, rows: { type: 'integer' },
                files: {
                  type: 'array',
                  items: { type: 'object', properties: { name: { type: 'string' }, sha256: { type: ['string', 'null'] }, bytes: { type: ['integer', 'null'] }, rows: { type: ['integer', 'null'] } } },
                },
              },
            },
          },
        },
      },
      DecisionRecord: {
        type: 'object',
        required: ['decision_id', 'kind', 'verdict', 'key_id', 'account', 'request_id', 'reference', 'batch', 'ruleset', 'snapshot'],
        properties: {
          decision_id: { type: 'string', format: 'uuid' },
          kind: { type: 'string', enum: ['check', 'batch_row'] },
          verdict: { $ref: '#/components/schemas/Verdict', description: 'exactly as it was answered (batch rows: as screened)' },
          key_id: { type: 'string' }, account: { type: 'string' },
          request_id: { type: ['string', 'null'] }, reference: { type: ['string', 'null'] },
          batch: { type: ['object', 'null'], properties: { job_id: { type: 'string' }, row: { type: 'integer' } } },
          ruleset: {
            type: ['object', 'null'],
            properties: { version: { type: 'integer' }, published_at: { type: 'string' }, sha256: { type: 'string', description: 'SHA-256 of the rule set body as canonical JSON (keys sorted)' } },
          },
          snapshot: { type: ['object', 'null'], description: 'the snapshot manifest (per source: as-of, rows, files with SHA-256, ingest time), kept indefinitely' },
        },
      },
      Problem: {
        type: 'object',
        required: ['type', 'title', 'status', 'detail', 'code'],
        properties: {
          type: { type: 'string', format: 'uri' }, title: { type: 'string' }, status: { type: 'integer' },
          detail: { type: 'string' }, code: { $ref: '#/components/schemas/ProblemCode' }, instance: { type: 'string' },
          errors: { type: 'array', maxItems: 20, items: { type: 'object', properties: { path: { type: 'string' }, message: { type: 'string' } } } },
          active_job_id: { type: 'string' },
        },
      },
      BatchRow: {
        type: 'object',
        properties: Object.fromEntries(['mc', 'dot', 'uei', 'ref'].map((field) => [field, { type: 'string', maxLength: 256 }])),
      },
      BatchAccepted: {
        type: 'object',
        required: ['job_id', 'total', 'status', 'poll', 'report'],
        properties: { job_id: { type: 'string' }, total: { type: 'integer' }, status: { const: 'queued' }, poll: { type: 'string' }, report: { type: 'string' } },
      },
      BatchStatus: {
        type: 'object',
        required: ['job_id', 'status', 'total', 'processed', 'summary', 'created_at', 'started_at', 'finished_at', 'poll', 'report'],
        properties: {
          job_id: { type: 'string' },
          status: { type: 'string', enum: ['queued', 'running', 'completed', 'cancelled', 'failed'] },
          total: { type: 'integer' }, processed: { type: 'integer' },
          summary: { type: 'object', required: outcomes, properties: Object.fromEntries(outcomes.map((outcome) => [outcome, { type: 'integer' }])) },
          created_at: { type: 'string', format: 'date-time' },
          started_at: { type: ['string', 'null'], format: 'date-time' },
          finished_at: { type: ['string', 'null'], format: 'date-time' },
          poll: { type: 'string' }, report: { type: 'string' },
        },
      },
    },
    responses: {
      Problem: {
        description: 'RFC 9457 problem',
        content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
      },
    },
  },
  paths: {
    '/v1/eligibility': {
      post: {
        summary: 'Fail-closed eligibility verdict for one MC number',
        security: [{ apiKey: [] }],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object', required: ['mc_number'],
                properties: {
                  mc_number: { type: 'string', examples: ['MC-123456'] },
                  reference: { type: 'string', maxLength: 128, description: 'your own id for the check (load, tender), stored with the decision record' },
                },
              },
            },
          },
        },
        responses: {
          200: { description: 'Verdict (also for unknown carriers and a degraded backend)', content: { 'application/json': { schema: { $ref: '#/components/schemas/Verdict' } } } },
          ...statuses(400, 401, 403, 413, 422, 429),
        },
      },
    },
    '/v1/decisions/{id}': {
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } }],
      get: {
        summary: 'The record of a decision (single check or batch row) made by any key of your account; scope eligibility or batch',
        security: [{ apiKey: [] }],
        responses: {
          200: { description: 'Decision record', content: { 'application/json': { schema: { $ref: '#/components/schemas/DecisionRecord' } } } },
          ...statuses(401, 403, 404, 503),
        },
      },
    },
    '/v1/health': {
      get: { summary: 'Service and data-freshness health (always 200 while running)', responses: { 200: { description: 'Health' } } },
    },
    '/v1/batch': {
      post: {
        summary: 'Submit a roster (1–5000 rows) for asynchronous screening',
        security: [{ apiKey: [] }],
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { type: 'object', required: ['items'], properties: { items: { type: 'array', minItems: 1, maxItems: 5000, items: { $ref: '#/components/schemas/BatchRow' } } } } } },
        },
        responses: {
          202: { description: 'Accepted', content: { 'application/json': { schema: { $ref: '#/components/schemas/BatchAccepted' } } } },
          ...statuses(400, 401, 403, 409, 413, 422),
        },
      },
    },
    '/v1/batch/{id}': {
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
      get: {
        summary: 'Job status and outcome summary',
        security: [{ apiKey: [] }],
        responses: { 200: { description: 'Status', content: { 'application/json': { schema: { $ref: '#/components/schemas/BatchStatus' } } } }, ...statuses(401, 403, 404) },
      },
      delete: {
        summary: 'Cancel a queued or running job',
        security: [{ apiKey: [] }],
        responses: { 200: { description: 'Status after cancel', content: { 'application/json': { schema: { $ref: '#/components/schemas/BatchStatus' } } } }, ...statuses(401, 403, 404, 409) },
      },
    },
    '/v1/batch/{id}/report': {
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
      get: {
        summary: 'CSV report: header plus one line per input row, in input order; evidence columns (snapshot_version, evidence, sources) appended',
        security: [{ apiKey: [] }],
        responses: { 200: { description: 'CSV', content: { 'text/csv': { schema: { type: 'string' } } } }, ...statuses(401, 403, 404, 409) },
      },
    },
  },
  'x-problem-statuses': Object.fromEntries(ERROR_KINDS.map((kind) => [kind, PROBLEMS[kind].status])),
};

writeFileSync(new URL('../src/http/openapi.json', import.meta.url), `${JSON.stringify(document, null, 2)}\n`);
process.stdout.write('wrote src/http/openapi.json\n');
