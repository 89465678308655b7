// The overrides and review-queue part of the OpenAPI document (scripts/openapi.ts joins it in). Request bodies
// come from the routes' own zod schemas, so what is published is what is validated.
import { z } from 'zod';
import { createOverrideBody, decideBody, OVERRIDE_REASON_CODES, OVERRIDE_STATUSES } from '../src/overrides/model.js';
import { REVIEW_STATUSES } from '../src/overrides/review-store.js';

const fromZod = (schema: z.ZodType) => {
  const { $schema: _draft, ...json } = z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>;
  return json;
};
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: object) => ({ 'application/json': { schema } });
const problem = { $ref: '#/components/responses/Problem' };
const problems = (...codes: number[]) => Object.fromEntries([401, 403, ...codes, 503].map((code) => [String(code), problem]));
const review = [{ apiKey: ['review'] }];
const approve = [{ apiKey: ['approve'] }];
const either = [{ apiKey: ['review'] }, { apiKey: ['approve'] }];
const idPath = { name: 'id', in: 'path', required: true, schema: { type: 'string', pattern: '^ovr_[0-9a-f]{32}$' } };
const limit = { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 500, default: 100 } };
const nullableString = { type: ['string', 'null'] };
const summary = {
  type: ['object', 'null'], required: ['eligible', 'tier', 'reasons'],
  properties: { eligible: { type: 'boolean' }, tier: { type: ['string', 'null'] }, reasons: { type: 'array', items: ref('ReasonCode') } },
};
const scope = {
  oneOf: [
    { type: 'object', required: ['reference'], properties: { reference: { type: 'string' } }, description: 'only checks and batch rows carrying this reference; at most 7 days' },
    { type: 'object', required: ['until'], properties: { until: { type: 'string', format: 'date-time' } }, description: 'until this time (to the second); at most 365 days' },
    { type: 'object', required: ['until_change'], properties: { until_change: { const: true } }, description: 'until the facts behind the covered reasons change; at most 365 days' },
  ],
};
const binding = {
  type: 'object', required: ['reason', 'source', 'record_id', 'matched_name', 'fingerprint'],
  properties: { reason: ref('ReasonCode'), source: { type: 'string' }, record_id: nullableString, matched_name: nullableString, fingerprint: { type: 'string' } },
};

export const overrideSchemas = {
  OverrideCreate: fromZod(createOverrideBody),
  OverrideDecision: fromZod(decideBody),
  OverrideScope: scope,
  VerdictOverride: {
    type: 'object', required: ['id', 'kind', 'reasons', 'reason_code', 'scope', 'expires_at', 'requested_by', 'approved_by', 'approved_at'],
    properties: {
      id: { type: 'string' }, kind: { enum: ['clearance', 'override'] }, reasons: { type: 'array', items: ref('ReasonCode') },
      reason_code: { enum: OVERRIDE_REASON_CODES }, scope: ref('OverrideScope'), expires_at: { type: 'string', format: 'date-time' },
      requested_by: { type: 'string' }, approved_by: nullableString, approved_at: nullableString,
    },
  },
  OverrideHistoryEntry: {
    type: 'object', required: ['at', 'action', 'actor', 'note', 'status', 'verdict_before', 'verdict_after'],
    properties: {
      at: { type: 'string', format: 'date-time' }, action: { enum: ['requested', 'approved', 'rejected', 'revoked', 'expired', 'invalidated'] },
      actor: { ...nullableString, description: 'null for a change the service made (expired, invalidated)' }, note: nullableString,
      status: { enum: OVERRIDE_STATUSES }, verdict_before: summary, verdict_after: summary,
    },
  },
  Override: {
    type: 'object',
    required: ['id', 'kind', 'status', 'mc_number', 'dot_number', 'legal_name', 'reasons', 'scope', 'reason_code', 'note', 'requested_by', 'requested_at',
      'approved_by', 'approved_at', 'expires_at', 'names_fingerprint', 'bindings', 'decision_id', 'closed_at', 'closed_by', 'closed_note', 'updated_at'],
    properties: {
      id: { type: 'string' }, kind: { enum: ['clearance', 'override'] }, status: { enum: OVERRIDE_STATUSES },
      mc_number: { type: 'string' }, dot_number: nullableString, legal_name: nullableString, reasons: { type: 'array', items: ref('ReasonCode') },
      scope: ref('OverrideScope'), reason_code: { enum: OVERRIDE_REASON_CODES }, note: nullableString,
      requested_by: { type: 'string' }, requested_at: { type: 'string', format: 'date-time' }, approved_by: nullableString, approved_at: nullableString,
      expires_at: { type: 'string', format: 'date-time' }, names_fingerprint: { ...nullableString, description: 'clearance: the carrier names as screened' },
      bindings: { type: 'array', items: binding, description: 'clearance: the list entries; until_change override: the facts behind each reason' },
      decision_id: nullableString, closed_at: nullableString, closed_by: nullableString, closed_note: nullableString, updated_at: { type: 'string', format: 'date-time' },
      history: { type: 'array', items: ref('OverrideHistoryEntry'), description: 'GET /v1/overrides/{id} only: every state change, oldest first' },
    },
  },
  OverridePage: { type: 'object', required: ['items', 'next_cursor'], properties: { items: { type: 'array', items: ref('Override') }, next_cursor: nullableString } },
  ReviewItem: {
    type: 'object',
    required: ['id', 'mc_number', 'dot_number', 'legal_name', 'reasons', 'evidence', 'first_seen_at', 'last_seen_at', 'seen_count', 'last_decision_id', 'last_source', 'status'],
    properties: {
      id: { type: 'string' }, mc_number: { type: 'string' }, dot_number: nullableString, legal_name: nullableString,
      reasons: { type: 'array', items: ref('ReasonCode') }, evidence: { type: 'array', items: { type: 'object' } },
      first_seen_at: { type: 'string', format: 'date-time' }, last_seen_at: { type: 'string', format: 'date-time' }, seen_count: { type: 'integer' },
      last_decision_id: nullableString, last_source: { enum: ['check', 'batch_row', 'monitoring'] }, status: { enum: REVIEW_STATUSES },
    },
  },
  ReviewPage: { type: 'object', required: ['items', 'next_cursor'], properties: { items: { type: 'array', items: ref('ReviewItem') }, next_cursor: nullableString } },
};

const decision = (summaryText: string, security: object[]) => ({
  summary: summaryText, security, parameters: [idPath],
  requestBody: { required: false, content: json(ref('OverrideDecision')) },
  responses: { 200: { description: 'The override after the change', content: json(ref('Override')) }, ...problems(404, 409, 422) },
});

export const overridePaths = {
  '/v1/reviews': {
    get: {
      summary: 'The account\'s review queue: one item per carrier that drew a conditional verdict, in MC order (scope review or approve)', security: either,
      parameters: [
        { name: 'status', in: 'query', required: false, schema: { enum: REVIEW_STATUSES } },
        { name: 'reason', in: 'query', required: false, schema: ref('ReasonCode') },
        { name: 'after', in: 'query', required: false, schema: { type: 'string' }, description: 'a next_cursor' }, limit,
      ],
      responses: { 200: { description: 'Items', content: json(ref('ReviewPage')) }, ...problems(422) },
    },
  },
  '/v1/overrides': {
    post: {
      summary: 'Request an override or clearance (scope review); a clearance always, an override unless the account policy says overrides.four_eyes: false, waits for a second person',
      description: 'Every scope lasts at most the account policy\'s overrides.max_days (an until beyond it is a 422 naming scope.until). 422 not_overridable names a reason no override can cover.',
      security: review,
      requestBody: { required: true, content: json(ref('OverrideCreate')) },
      responses: { 201: { description: 'Requested (pending_approval) or active', content: json(ref('Override')) }, ...problems(400, 413, 422) },
    },
    get: {
      summary: 'The account\'s overrides and clearances, newest first (scope review or approve)', security: either,
      parameters: [{ name: 'status', in: 'query', required: false, schema: { enum: OVERRIDE_STATUSES } },
        { name: 'mc_number', in: 'query', required: false, schema: { type: 'string' } }, { name: 'after', in: 'query', required: false, schema: { type: 'string' } }, limit],
      responses: { 200: { description: 'Overrides', content: json(ref('OverridePage')) }, ...problems(422) },
    },
  },
  '/v1/overrides/{id}': {
    parameters: [idPath],
    get: {
      summary: 'One override with its full history (scope review or approve); another account\'s is the same 404 as an unknown one', security: either,
      responses: { 200: { description: 'Override', content: json(ref('Override')) }, ...problems(404) },
    },
    delete: { ...decision('Revoke (scope review)', review), summary: 'Revoke (scope review); body {actor, note}' },
  },
  '/v1/overrides/{id}/approve': { post: decision('Approve (scope approve); 403 same_actor for the requester', approve) },
  '/v1/overrides/{id}/reject': { post: decision('Reject (scope approve); 403 same_actor for the requester', approve) },
};
