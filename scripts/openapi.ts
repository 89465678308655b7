// Builds src/http/openapi.json from the code's own tables (reason codes, problem kinds, config-free contract), so
// the published document cannot drift from what the service does. Run: npm run openapi
import { writeFileSync } from 'node:fs';
import { REASON_CODES } from '../src/core/reasons.js';
import { ERROR_KINDS } from '../src/errors.js';
import { PROBLEMS } from '../src/http/problem.js';
import { SERVICE_VERSION } from '../src/version.js';
import { policySchema } from '../src/policy/document.js';
import { z } from 'zod';
import { EVENT_TYPES, TRIGGERS } from '../src/monitoring/events-model.js';
import { MAX_WATCH_ROWS, replayBody, watchRefBody, webhookBody } from '../src/monitoring/routes.js';
import { MAX_ENDPOINTS_PER_ACCOUNT, REPLAY_QUEUE_MAX } from '../src/monitoring/webhook-store.js';
import { overridePaths, overrideSchemas } from './openapi-overrides.js';

const problemRef = { $ref: '#/components/responses/Problem' };
const outcomes = ['eligible', 'review', 'hard_stop', 'not_found', 'not_screened', 'error'];
const statuses = (...codes: number[]) => Object.fromEntries(codes.map((code) => [String(code), problemRef]));

// Monitoring: request bodies come from the routes' own zod schemas (what is published is what is validated).
const fromZod = (schema: z.ZodType) => {
  const { $schema: _draft, ...json } = z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>;
  return json;
};
const schemaRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: object) => ({ 'application/json': { schema } });
const monitoringSecurity = [{ apiKey: ['monitoring'] }];
const monitoringProblems = (...codes: number[]) => statuses(401, 403, ...codes, 429, 503);
const mcPath = { name: 'mc', in: 'path', required: true, schema: { type: 'string', examples: ['MC-123456'] }, description: 'MC number, normalised (1-8 digits, optional MC prefix)' };
const endpointPath = { name: 'id', in: 'path', required: true, schema: { type: 'string', pattern: '^ep_[a-z0-9]{16}$' } };
const limitQuery = (max: number) => ({ name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: max, default: 100 } });
const verdictBrief = {
  type: ['object', 'null'],
  required: ['eligible', 'tier', 'reasons'],
  properties: {
    eligible: { type: 'boolean' },
    tier: { type: ['string', 'null'], enum: ['preferred', 'standard', 'conditional', 'blocked', null] },
    reasons: { type: 'array', items: schemaRef('ReasonCode') },
  },
};
const reasonChange = {
  type: 'object', required: ['reason', 'evidence'],
  properties: { reason: schemaRef('ReasonCode'), evidence: { description: 'as in Evidence.reasons (null when none was kept)', type: ['object', 'null'] } },
};
const webhookHeaders = {
  'webhook-id': { required: true, description: 'the event id (UUIDv7); deduplicate on it', schema: { type: 'string' } },
  'webhook-timestamp': { required: true, description: 'Unix seconds of the attempt', schema: { type: 'string', pattern: '^[0-9]+$' } },
  'webhook-signature': {
    required: true,
    description: 'space-separated `v1,<base64 HMAC-SHA256 over "id.timestamp.body">`, one per valid secret (two during a rotation)',
    schema: { type: 'string', pattern: '^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)*$' },
  },
};
const monitoringSchemas = {
  EventType: { type: 'string', enum: EVENT_TYPES },
  Event: {
    type: 'object',
    description: 'A monitoring event (docs/monitoring.md). The same body is the webhook payload and a pull-feed item.',
    required: ['id', 'type', 'occurred_at', 'observed_at', 'mc', 'dot', 'trigger', 'before', 'after', 'reasons_added', 'reasons_removed', 'decision_id', 'ruleset_version', 'data_as_of'],
    properties: {
      id: { type: 'string', format: 'uuid', description: 'UUIDv7; equals the webhook-id header' },
      type: schemaRef('EventType'),
      occurred_at: { type: 'string', format: 'date-time', description: 'the source\'s own date of the change where there is one, else observed_at' },
      observed_at: { type: 'string', format: 'date-time' },
      mc: { type: ['string', 'null'], description: 'null for screening.* events' },
      dot: { type: ['string', 'null'] },
      trigger: { type: ['string', 'null'], enum: [...TRIGGERS, null], description: 'what found the change; policy: the account published a policy version; override: one of its overrides or clearances changed' },
      before: verdictBrief, after: verdictBrief,
      reasons_added: { type: 'array', items: reasonChange },
      reasons_removed: { type: 'array', items: reasonChange },
      decision_id: { type: ['string', 'null'], format: 'uuid', description: 'a decision record of the new verdict, owned by the account' },
      ruleset_version: { type: ['integer', 'null'] },
      data_as_of: { type: ['string', 'null'], format: 'date-time' },
      effective_on: { type: ['string', 'null'], description: 'carrier.at_risk only: the date the pending cancellation or revocation takes effect' },
      degraded_reasons: { type: 'array', items: schemaRef('ReasonCode'), description: 'screening.degraded / screening.restored only' },
      changes: {
        type: 'array', description: 'identity.changed only: the census identity fields that changed (docs/identity.md)',
        items: {
          type: 'object', required: ['field', 'kind', 'before', 'after', 'snapshot', 'seen_on', 'first_seen_on'],
          properties: {
            field: { type: 'string', enum: ['legal_name', 'dba_name', 'phone', 'cell_phone', 'email', 'physical_address', 'mailing_address', 'officers'] },
            kind: { type: 'string', enum: ['name', 'contact', 'address', 'officers'] },
            before: { type: ['string', 'null'], description: 'normalised; null when only a fingerprint of it was kept' },
            after: { type: 'string' },
            snapshot: { type: 'string' }, seen_on: { type: 'string', format: 'date' }, first_seen_on: { type: ['string', 'null'], format: 'date' },
          },
        },
      },
      overrides: { type: 'array', items: schemaRef('VerdictOverride'), description: 'verdict.changed to a verdict the account\'s overrides and clearances lift: the ones that cover it' },
    },
  },
  WatchRefBody: fromZod(watchRefBody),
  WatchImport: {
    type: 'object', required: ['items'], description: 'all or nothing; a repeated MC keeps its first row',
    properties: {
      items: {
        type: 'array', minItems: 1, maxItems: MAX_WATCH_ROWS,
        items: { type: 'object', required: ['mc'], properties: { mc: { type: 'string' }, ref: { type: ['string', 'null'], maxLength: 256 } } },
      },
    },
  },
  WatchPage: {
    type: 'object', required: ['items', 'watched', 'next_cursor'],
    properties: {
      items: {
        type: 'array',
        items: {
          type: 'object', required: ['mc', 'added_at', 'ref', 'verdict'],
          properties: {
            mc: { type: 'string' }, added_at: { type: 'string', format: 'date-time' }, ref: { type: ['string', 'null'] },
            verdict: {
              type: 'object', description: 'the account\'s current verdict (its policy, its overrides), computed like a single check without a decision record',
              required: ['eligible', 'tier', 'reasons', 'degraded', 'ruleset_version', 'data_as_of', 'dot_number', 'legal_name'],
              properties: {
                eligible: { type: 'boolean' }, tier: { type: ['string', 'null'], enum: ['preferred', 'standard', 'conditional', 'blocked', null] },
                reasons: { type: 'array', items: schemaRef('ReasonCode') }, degraded: { type: 'boolean' },
                ruleset_version: { type: ['integer', 'null'] }, policy_version: { type: ['integer', 'null'] },
                data_as_of: { type: ['string', 'null'], format: 'date-time' },
                dot_number: { type: ['string', 'null'] }, legal_name: { type: ['string', 'null'] },
                overrides: { type: 'array', items: schemaRef('VerdictOverride'), description: 'only on a verdict lifted by the account\'s active overrides' },
              },
            },
          },
        },
      },
      watched: { type: 'integer' },
      next_cursor: { type: ['string', 'null'], description: 'pass back as `after`; null on the last page' },
    },
  },
  WebhookCreate: fromZod(webhookBody),
  WebhookReplay: fromZod(replayBody),
  WebhookEndpoint: {
    type: 'object', required: ['id', 'url', 'event_types', 'description', 'status', 'disabled_reason', 'created_at', 'secrets'],
    properties: {
      id: { type: 'string', pattern: '^ep_[a-z0-9]{16}$' }, url: { type: 'string', format: 'uri' },
      event_types: { type: 'array', items: schemaRef('EventType'), description: 'empty: every type' },
      description: { type: ['string', 'null'] }, status: { type: 'string', enum: ['active', 'disabled'] },
      disabled_reason: { type: ['string', 'null'] }, created_at: { type: 'string', format: 'date-time' },
      secrets: {
        type: 'array', description: 'the valid secrets\' dates, never the secrets',
        items: { type: 'object', properties: { created_at: { type: 'string', format: 'date-time' }, expires_at: { type: ['string', 'null'], format: 'date-time' } } },
      },
    },
  },
  WebhookEndpointWithSecret: {
    allOf: [schemaRef('WebhookEndpoint'), {
      type: 'object', required: ['secret'],
      properties: { secret: { type: 'string', pattern: '^whsec_', description: 'shown only in this answer' } },
    }],
  },
  WebhookEndpointDetail: {
    allOf: [schemaRef('WebhookEndpoint'), {
      type: 'object', required: ['delivery'],
      properties: {
        delivery: {
          type: 'object', required: ['cursor', 'failing_attempts', 'next_attempt_at', 'failing_since'],
          properties: {
            cursor: { type: 'string' }, failing_attempts: { type: 'integer' },
            next_attempt_at: { type: ['string', 'null'], format: 'date-time' }, failing_since: { type: ['string', 'null'], format: 'date-time' },
          },
        },
      },
    }],
  },
  DeliveryLogEntry: {
    type: 'object', required: ['event_id', 'type', 'mc', 'attempt', 'at', 'outcome', 'status', 'duration_ms', 'error', 'next_attempt_at'],
    properties: {
      event_id: { type: 'string' }, type: { type: 'string' }, mc: { type: ['string', 'null'] }, attempt: { type: 'integer' },
      at: { type: 'string', format: 'date-time' },
      outcome: { type: 'string', enum: ['delivered', 'failed', 'gave_up', 'disabled', 'replayed'] },
      status: { type: ['integer', 'null'], description: 'the receiver\'s HTTP status' }, duration_ms: { type: 'number' },
      error: { type: ['string', 'null'] }, next_attempt_at: { type: ['string', 'null'], format: 'date-time' },
    },
  },
  EventPage: {
    type: 'object', required: ['events', 'next_cursor', 'has_more'],
    properties: {
      events: { type: 'array', items: schemaRef('Event') },
      next_cursor: { type: ['string', 'null'], description: 'opaque; pass back as `after`' }, has_more: { type: 'boolean' },
    },
  },
};

const monitoringPaths = {
  '/v1/watchlist/{mc}': {
    parameters: [mcPath],
    put: {
      summary: 'Watch one carrier (scope monitoring)', security: monitoringSecurity,
      requestBody: { required: false, content: json(schemaRef('WatchRefBody')) },
      responses: {
        200: { description: 'Already watched', content: json({ type: 'object', properties: { mc: { type: 'string' }, watching: { const: true }, added: { const: false } } }) },
        201: { description: 'Added', content: json({ type: 'object', properties: { mc: { type: 'string' }, watching: { const: true }, added: { const: true } } }) },
        ...monitoringProblems(400, 413, 422),
      },
    },
    delete: {
      summary: 'Stop watching a carrier (scope monitoring)', security: monitoringSecurity,
      responses: { 204: { description: 'Removed' }, ...monitoringProblems(404, 422) },
    },
  },
  '/v1/watchlist': {
    post: {
      summary: `Watch up to ${MAX_WATCH_ROWS} carriers at once, all or nothing (scope monitoring)`, security: monitoringSecurity,
      requestBody: { required: true, content: json(schemaRef('WatchImport')) },
      responses: {
        200: {
          description: 'Added', content: json({
            type: 'object', required: ['added', 'already_watched', 'watched'],
            properties: { added: { type: 'integer' }, already_watched: { type: 'integer' }, watched: { type: 'integer' } },
          }),
        },
        ...monitoringProblems(400, 413, 422),
      },
    },
    get: {
      summary: 'The account\'s watched carriers in MC order, each with its current verdict (scope monitoring)', security: monitoringSecurity,
      parameters: [limitQuery(500), { name: 'after', in: 'query', required: false, schema: { type: 'string' }, description: 'next_cursor of the previous page' }],
      responses: { 200: { description: 'Page', content: json(schemaRef('WatchPage')) }, ...monitoringProblems(422) },
    },
  },
  '/v1/webhooks': {
    post: {
      summary: `Register a webhook endpoint (at most ${MAX_ENDPOINTS_PER_ACCOUNT} per account; scope monitoring)`, security: monitoringSecurity,
      requestBody: { required: true, content: json(schemaRef('WebhookCreate')) },
      responses: { 201: { description: 'Created; the secret is shown only here', content: json(schemaRef('WebhookEndpointWithSecret')) }, ...monitoringProblems(400, 413, 422) },
    },
    get: {
      summary: 'The account\'s webhook endpoints, without secrets (scope monitoring)', security: monitoringSecurity,
      responses: { 200: { description: 'Endpoints', content: json({ type: 'object', required: ['items'], properties: { items: { type: 'array', items: schemaRef('WebhookEndpoint') } } }) }, ...monitoringProblems() },
    },
  },
  '/v1/webhooks/{id}': {
    parameters: [endpointPath],
    get: {
      summary: 'One endpoint with its delivery state (scope monitoring)', security: monitoringSecurity,
      responses: { 200: { description: 'Endpoint', content: json(schemaRef('WebhookEndpointDetail')) }, ...monitoringProblems(404) },
    },
    delete: {
      summary: 'Remove an endpoint with its state and log (scope monitoring)', security: monitoringSecurity,
      responses: { 204: { description: 'Removed' }, ...monitoringProblems(404) },
    },
  },
  '/v1/webhooks/{id}/rotate-secret': {
    parameters: [endpointPath],
    post: {
      summary: 'New signing secret; the previous one stays valid 24 h (scope monitoring)', security: monitoringSecurity,
      responses: { 200: { description: 'Rotated; the new secret is shown only here', content: json(schemaRef('WebhookEndpointWithSecret')) }, ...monitoringProblems(404) },
    },
  },
  '/v1/webhooks/{id}/enable': {
    parameters: [endpointPath],
    post: {
      summary: 'Re-enable a disabled endpoint: clears the backoff of events and replays and drops a replay the receiver refused (scope monitoring)', security: monitoringSecurity,
      responses: { 200: { description: 'Enabled', content: json(schemaRef('WebhookEndpoint')) }, ...monitoringProblems(404) },
    },
  },
  '/v1/webhooks/{id}/deliveries': {
    parameters: [endpointPath],
    get: {
      summary: 'Delivery log, newest first (scope monitoring)', security: monitoringSecurity, parameters: [limitQuery(1000)],
      responses: { 200: { description: 'Log', content: json({ type: 'object', required: ['items'], properties: { items: { type: 'array', items: schemaRef('DeliveryLogEntry') } } }) }, ...monitoringProblems(404, 422) },
    },
  },
  '/v1/webhooks/{id}/replay': {
    parameters: [endpointPath],
    post: {
      summary: `Queue kept events for delivery again, same webhook-ids; each event at most once, at most ${REPLAY_QUEUE_MAX} waiting (scope monitoring)`, security: monitoringSecurity,
      requestBody: { required: true, content: json(schemaRef('WebhookReplay')) },
      responses: {
        202: {
          description: 'Queued (events already waiting for replay are not queued again)',
          content: json({
            type: 'object', required: ['queued'],
            properties: {
              queued: { type: 'integer', description: 'events this request added' },
              already_queued: { type: 'integer', description: 'events of this request already waiting for replay' },
              replays_pending: { type: 'integer', description: 'replays now waiting for the endpoint' },
            },
          }),
        },
        ...monitoringProblems(400, 404, 409, 413, 422),
      },
    },
  },
  '/v1/events': {
    get: {
      summary: 'Pull feed of the account\'s events, oldest first (scope monitoring)', security: monitoringSecurity,
      parameters: [limitQuery(1000), { name: 'after', in: 'query', required: false, schema: { type: 'string' }, description: 'a next_cursor; without it the feed starts at the oldest event kept' }],
      responses: { 200: { description: 'Events', content: json(schemaRef('EventPage')) }, ...monitoringProblems(422) },
    },
  },
};

// OpenAPI 3.1 `webhooks`: what the service POSTs to a registered endpoint.
const monitoringWebhooks = {
  monitoringEvent: {
    post: {
      summary: 'A monitoring event, signed per Standard Webhooks; at least once, in order per carrier',
      // The service calls the receiver, so no API key: the receiver verifies webhook-signature with its secret.
      security: [],
      parameters: Object.entries(webhookHeaders).map(([name, header]) => ({ name, in: 'header', ...header })),
      requestBody: { required: true, content: json(schemaRef('Event')) },
      responses: {
        '2XX': { description: 'Accepted; the next event of this carrier may be sent' },
        410: { description: 'Gone: the endpoint is disabled (re-enable with POST /v1/webhooks/{id}/enable)' },
        default: { description: 'Retried with exponential backoff (never sooner than Retry-After) for up to WEBHOOK_RETRY_WINDOW_SECONDS' },
      },
    },
  },
};

const document = {
  openapi: '3.1.0',
  info: {
    title: 'Carrier Eligibility Decision Service',
    version: '1.0.0',
    'x-service-version': SERVICE_VERSION,
    description: 'Fail-closed carrier eligibility verdicts by MC number, and asynchronous roster screening with a CSV report.',
    license: { name: 'Proprietary: licensed to the operator of this service; not for redistribution', identifier: 'LicenseRef-Proprietary' },
  },
  servers: [{ url: '/' }],
  components: {
    securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } },
    schemas: {
      ReasonCode: { type: 'string', enum: REASON_CODES },
      PolicyDocument: z.toJSONSchema(policySchema, { target: 'draft-2020-12', io: 'input' }),
      PublishedPolicy: {
        type: 'object', required: ['version', 'sha256', 'published_at', 'published_by', 'policy'],
        properties: { version: { type: 'integer', minimum: 1 }, sha256: { type: 'string' }, published_at: { type: 'string', format: 'date-time' }, published_by: { type: ['string', 'null'] }, policy: { $ref: '#/components/schemas/PolicyDocument' } },
      },
      PolicyDryRun: {
        type: 'object', required: ['ruleset_version', 'current_policy_version', 'evaluated', 'changed', 'changes'],
        properties: {
          ruleset_version: { type: 'integer' }, current_policy_version: { type: ['integer', 'null'] }, evaluated: { type: 'integer' }, changed: { type: 'integer' },
          changes: { type: 'array', items: { type: 'object', required: ['mc_number', 'before', 'after'], properties: { mc_number: { type: 'string' }, before: { $ref: '#/components/schemas/VerdictSummary' }, after: { $ref: '#/components/schemas/VerdictSummary' } } } },
        },
      },
      VerdictSummary: {
        type: 'object', required: ['eligible', 'tier', 'reasons'],
        properties: { eligible: { type: 'boolean' }, tier: { type: ['string', 'null'] }, reasons: { type: 'array', items: { $ref: '#/components/schemas/ReasonCode' } } },
      },
      ProblemCode: { type: 'string', enum: ERROR_KINDS },
      Verdict: {
        type: 'object',
        required: ['eligible', 'found', 'tier', 'reasons', 'degraded', 'decision_id', 'ruleset_version', 'policy_version', 'data_as_of', 'evaluated_at', 'cache_hit', 'mc_number', 'carrier', 'evidence'],
        properties: {
          eligible: { type: 'boolean' },
          found: { type: 'boolean' },
          tier: { type: ['string', 'null'], enum: ['preferred', 'standard', 'conditional', 'blocked', null] },
          reasons: { type: 'array', items: { $ref: '#/components/schemas/ReasonCode' } },
          degraded: { type: 'boolean' },
          overrides: { type: 'array', items: { $ref: '#/components/schemas/VerdictOverride' }, description: 'only on a conditional verdict lifted by the account\'s active overrides; the evidence keeps every covered reason' },
          decision_id: { type: 'string', format: 'uuid', description: 'UUIDv7 (RFC 9562)' },
          ruleset_version: { type: ['integer', 'null'] },
          policy_version: { type: ['integer', 'null'], description: "the account policy's version the verdict was decided under; null without a policy" },
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
          override_ids: { type: 'array', items: { type: 'string' }, description: 'the overrides and clearances that lifted the verdict ([] almost always)' },
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
      ...monitoringSchemas,
      ...overrideSchemas,
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
    '/v1/decisions': {
      get: {
        summary: "Your account's decision records in a time range (of one carrier when mc_number is given) from the Redis window and the archive, in decision-id order; scope eligibility",
        description: 'A page may hold fewer than limit items, even none, while next_cursor is not null: each page reads a bounded stretch of the archive (docs/decisions-archive.md).',
        security: [{ apiKey: [] }],
        parameters: [
          { name: 'from', in: 'query', required: true, schema: { type: 'string', format: 'date-time' }, description: 'start of decision time (inclusive), ISO 8601' },
          { name: 'to', in: 'query', required: true, schema: { type: 'string', format: 'date-time' }, description: 'end of decision time (exclusive), ISO 8601' },
          { name: 'mc_number', in: 'query', required: false, schema: { type: 'string' }, description: "only this carrier's records" },
          limitQuery(500),
          { name: 'cursor', in: 'query', required: false, schema: { type: 'string' }, description: 'next_cursor of the previous page' },
        ],
        responses: {
          200: {
            description: 'One page of decision records',
            content: { 'application/json': { schema: {
              type: 'object', required: ['items', 'next_cursor'],
              properties: { items: { type: 'array', items: { $ref: '#/components/schemas/DecisionRecord' } }, next_cursor: { type: ['string', 'null'] } },
            } } },
          },
          ...statuses(401, 403, 422, 429, 503),
        },
      },
    },
    '/v1/decisions/{id}': {
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } }],
      get: {
        summary: 'The record of a decision (single check or batch row) made by any key of your account, from Redis within DECISION_RETENTION_DAYS and from the archive beyond it (same body); scope eligibility or batch',
        security: [{ apiKey: [] }],
        responses: {
          200: { description: 'Decision record', content: { 'application/json': { schema: { $ref: '#/components/schemas/DecisionRecord' } } } },
          ...statuses(401, 403, 404, 429, 503),
        },
      },
    },
    '/v1/policy': {
      get: {
        summary: "The account's current carrier policy (scope policy)",
        security: [{ apiKey: ['policy'] }],
        responses: { 200: { description: 'Policy', content: { 'application/json': { schema: { $ref: '#/components/schemas/PublishedPolicy' } } } }, ...statuses(401, 403, 404, 503) },
      },
      put: {
        summary: 'Publish the next version of the account policy; never looser than the rule set (scope policy)',
        security: [{ apiKey: ['policy'] }],
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/PolicyDocument' } } } },
        responses: { 200: { description: 'Published', content: { 'application/json': { schema: { $ref: '#/components/schemas/PublishedPolicy' } } } }, ...statuses(400, 401, 403, 413, 422, 503) },
      },
    },
    '/v1/policy/versions/{n}': {
      parameters: [{ name: 'n', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } }],
      get: {
        summary: 'Any published version of the account policy (kept forever; scope policy)',
        security: [{ apiKey: ['policy'] }],
        responses: { 200: { description: 'Policy version', content: { 'application/json': { schema: { $ref: '#/components/schemas/PublishedPolicy' } } } }, ...statuses(401, 403, 404, 503) },
      },
    },
    '/v1/policy/dry-run': {
      post: {
        summary: "Which verdicts a candidate policy would change, for the account's watched carriers and the MC numbers given, without publishing (scope policy)",
        security: [{ apiKey: ['policy'] }],
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { type: 'object', required: ['policy'], properties: { policy: { $ref: '#/components/schemas/PolicyDocument' }, mc_numbers: { type: 'array', maxItems: 5000, items: { type: 'string' } } } } } },
        },
        responses: { 200: { description: 'Dry run', content: { 'application/json': { schema: { $ref: '#/components/schemas/PolicyDryRun' } } } }, ...statuses(400, 401, 403, 413, 422, 503) },
      },
    },
    '/v1/me': {
      get: {
        summary: "The presented key's id, scopes and bound actor (any valid key)",
        security: [{ apiKey: [] }],
        responses: { 200: { description: 'Key identity', content: { 'application/json': { schema: { type: 'object', required: ['key_id', 'scopes', 'actor'], properties: { key_id: { type: 'string' }, scopes: { type: 'array', items: { type: 'string' } }, actor: { type: ['string', 'null'] }, label: { type: 'string' }, expires_at: { type: ['string', 'null'] } } } } } }, ...statuses(401, 503) },
      },
    },
    '/v1/carriers/{mc}/history': {
      parameters: [{ name: 'mc', in: 'path', required: true, schema: { type: 'string' }, description: 'MC number (MC123456 or 123456)' }],
      get: {
        summary: 'Identity changes (names, phone, email, addresses, officers) recorded between census ingests, oldest first; scope eligibility',
        security: [{ apiKey: [] }],
        responses: {
          200: {
            description: 'The recorded changes of each DOT record the MC names in the serving snapshot',
            content: { 'application/json': { schema: {
              type: 'object', required: ['mc_number', 'carriers'],
              properties: {
                mc_number: { type: 'string' },
                carriers: { type: 'array', items: { type: 'object', required: ['dot_number', 'changes'], properties: {
                  dot_number: { type: 'string' },
                  changes: { type: 'array', items: { type: 'object', required: ['field', 'kind', 'old', 'new', 'snapshot', 'seen_on'], properties: {
                    field: { type: 'string', enum: ['legal_name', 'dba_name', 'phone', 'cell_phone', 'email', 'physical_address', 'mailing_address', 'officers'] },
                    kind: { type: 'string', enum: ['name', 'contact', 'address', 'officers'] },
                    old: { type: ['string', 'null'], description: 'Normalised value before; null when only its fingerprint was kept' },
                    new: { type: 'string', description: 'Normalised value after (empty: the field became blank)' },
                    snapshot: { type: 'string', description: 'Snapshot version whose ingest first saw the change' },
                    seen_on: { type: 'string', format: 'date', description: "The census file's own as-of date" },
                  } } },
                } } },
              },
            } } },
          },
          ...statuses(400, 401, 403, 404, 429, 503),
        },
      },
    },
    '/v1/health': {
      get: {
        summary: 'Service and data-freshness health (always 200 while running; no key: probes call it)',
        security: [],
        responses: {
          200: { description: 'Health' },
          400: { description: 'Malformed request, refused by the HTTP layer before any route (empty body, connection closed; docs/http.md)' },
        },
      },
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
          ...statuses(400, 401, 403, 409, 413, 422, 429, 503),
        },
      },
    },
    '/v1/batch/{id}': {
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
      get: {
        summary: 'Job status and outcome summary',
        security: [{ apiKey: [] }],
        responses: { 200: { description: 'Status', content: { 'application/json': { schema: { $ref: '#/components/schemas/BatchStatus' } } } }, ...statuses(401, 403, 404, 429, 503) },
      },
      delete: {
        summary: 'Cancel a queued or running job',
        security: [{ apiKey: [] }],
        responses: { 200: { description: 'Status after cancel', content: { 'application/json': { schema: { $ref: '#/components/schemas/BatchStatus' } } } }, ...statuses(401, 403, 404, 409, 429, 503) },
      },
    },
    '/v1/batch/{id}/report': {
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
      get: {
        summary: 'CSV report: header plus one line per input row, in input order; evidence columns (snapshot_version, evidence, sources) appended',
        security: [{ apiKey: [] }],
        responses: { 200: { description: 'CSV', content: { 'text/csv': { schema: { type: 'string' } } } }, ...statuses(401, 403, 404, 409, 429, 503) },
      },
    },
    ...monitoringPaths,
    ...overridePaths,
  },
  webhooks: monitoringWebhooks,
  'x-problem-statuses': Object.fromEntries(ERROR_KINDS.map((kind) => [kind, PROBLEMS[kind].status])),
};

/**
 * Every operation's operationId (client generators name their methods by it), by `METHOD path`; an operation
 * missing here stops the build, so a new route cannot ship without one. test/unit/openapi-lint.test.ts keeps the
 * document clean under redocly's recommended rules.
 */
const OPERATION_IDS: Record<string, string> = {
  'post /v1/eligibility': 'checkEligibility',
  'get /v1/decisions': 'findDecisions',
  'get /v1/decisions/{id}': 'getDecision',
  'get /v1/health': 'getHealth',
  'get /v1/carriers/{mc}/history': 'getCarrierHistory',
  'post /v1/batch': 'submitBatch',
  'get /v1/batch/{id}': 'getBatch',
  'delete /v1/batch/{id}': 'cancelBatch',
  'get /v1/batch/{id}/report': 'getBatchReport',
  'put /v1/watchlist/{mc}': 'watchCarrier',
  'delete /v1/watchlist/{mc}': 'unwatchCarrier',
  'post /v1/watchlist': 'watchCarriers',
  'get /v1/watchlist': 'listWatchlist',
  'post /v1/webhooks': 'createWebhook',
  'get /v1/webhooks': 'listWebhooks',
  'get /v1/webhooks/{id}': 'getWebhook',
  'delete /v1/webhooks/{id}': 'deleteWebhook',
  'post /v1/webhooks/{id}/rotate-secret': 'rotateWebhookSecret',
  'post /v1/webhooks/{id}/enable': 'enableWebhook',
  'get /v1/webhooks/{id}/deliveries': 'listWebhookDeliveries',
  'post /v1/webhooks/{id}/replay': 'replayWebhookEvents',
  'get /v1/events': 'listEvents',
  'get /v1/policy': 'getPolicy',
  'put /v1/policy': 'publishPolicy',
  'get /v1/policy/versions/{n}': 'getPolicyVersion',
  'post /v1/policy/dry-run': 'dryRunPolicy',
  'get /v1/me': 'getMe',
  'get /v1/reviews': 'listReviews',
  'post /v1/overrides': 'requestOverride',
  'get /v1/overrides': 'listOverrides',
  'get /v1/overrides/{id}': 'getOverride',
  'delete /v1/overrides/{id}': 'revokeOverride',
  'post /v1/overrides/{id}/approve': 'approveOverride',
  'post /v1/overrides/{id}/reject': 'rejectOverride',
  'post monitoringEvent': 'receiveMonitoringEvent',
};
const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options']);
for (const group of [document.paths, document.webhooks] as Record<string, Record<string, Record<string, unknown>>>[]) {
  for (const [path, item] of Object.entries(group)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!HTTP_METHODS.has(method)) continue;
      const id = OPERATION_IDS[`${method} ${path}`];
      if (id === undefined) throw new Error(`scripts/openapi.ts: no operationId for ${method.toUpperCase()} ${path}; add one to OPERATION_IDS`);
      // operationId first after the summary, so it reads as the operation's name.
      const { summary, ...rest } = operation;
      item[method] = summary === undefined ? { operationId: id, ...rest } : { summary, operationId: id, ...rest };
    }
  }
}

writeFileSync(new URL('../src/http/openapi.json', import.meta.url), `${JSON.stringify(document, null, 2)}\n`);
process.stdout.write('wrote src/http/openapi.json\n');
