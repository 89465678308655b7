// Micro-benchmarks of the pure pieces of a cache-hot eligibility check (issue 10): decide(), verdict
// serialisation, body parsing, decision ids, RateLimit headers. `npm run bench:micro`; numbers in bench/README.md.
// Each row calls the real module function where one exists; rows marked "reference" time the alternative a
// change replaced, so the saving stays visible in review.
import { randomUUID } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import { z } from 'zod';
import { decide, type DecisionInput } from '../../src/core/decide.js';
import { normaliseMcNumber } from '../../src/core/mc-number.js';
import { DEFAULT_RULE_SET } from '../../src/core/ruleset.js';
import { parseJsonBody } from '../../src/http/json-body.js';
import { rateLimitHeaders } from '../../src/ratelimit/budget.js';
import { decisionId } from '../../src/verdict/eligibility.js';
import { cleanCarrier } from '../../test/helpers/harness.js';
import { measure, report, type MicroResult } from './harness.js';

const nowMs = Date.now();
const iso = new Date(nowMs).toISOString();
const snapshot = {
  version: 'vbench', data_as_of: iso, created_at: iso, carrier_count: 1,
  sources: { census: { present: true, as_of: iso, rows: 1 }, authority: { present: true, as_of: iso, rows: 1 } },
};
const ruleset = { version: 1, published_at: iso, rules: DEFAULT_RULE_SET };
const input = (record = cleanCarrier('123456')): DecisionInput => ({
  lookup: { kind: 'found', record }, ruleset, snapshot, backendAvailable: true, maxDataAgeSeconds: 172_800, nowMs, onDoNotUseList: false,
});
const clean = input();
const blocked = input(cleanCarrier('123457', { safety_rating: 'U', oos_order: { since: '2024-01-01', reason: 'unsat' } }));
const notFound: DecisionInput = { ...clean, lookup: { kind: 'not_found' } };

const decision = decide(clean);
const verdict = {
  eligible: decision.eligible, found: decision.found, tier: decision.tier, reasons: decision.reasons, degraded: decision.degraded,
  decision_id: decisionId(nowMs), ruleset_version: decision.ruleset_version, data_as_of: decision.data_as_of, evaluated_at: iso,
  cache_hit: true, mc_number: '123456', carrier: decision.carrier,
};

// The handler's schema (src/http/handlers/eligibility.ts), rebuilt here because it is module-private.
const eligibilityRequest = z.object({
  mc_number: z.string().refine((value) => normaliseMcNumber(value) !== null, { message: 'bad' }),
  reference: z.string().max(128).optional(),
});
const canonicalBody = Buffer.from('{"mc_number":"123456"}');

const results: MicroResult[] = [
  measure('decide(): found, clean (preferred)', () => decide(clean)),
  measure('decide(): found, two hard stops (blocked)', () => decide(blocked)),
  measure('decide(): not found', () => decide(notFound)),
  measure('serialise: JSON.stringify(verdict)', () => JSON.stringify(verdict)),
  measure('parse: parseJsonBody + zod, canonical body', () => parseJsonBody(canonicalBody, eligibilityRequest)),
  measure('parse: normaliseMcNumber("MC-123456")', () => normaliseMcNumber('MC-123456')),
  measure('decision id: decisionId() (pooled UUIDv7)', () => decisionId(nowMs)),
  measure('decision id: uuid v7() (reference)', () => uuidv7(), { note: 'what decisionId() replaced' }),
  measure('request id: crypto.randomUUID() (reference)', () => randomUUID(), { note: 'x-request-id when the client sends none' }),
  measure('rateLimitHeaders()', () => rateLimitHeaders({ allowed: true, limit: 1000, remaining: 999, retryAfterSeconds: 1, resetSeconds: 60, fromFallback: false })),
  measure('evaluated_at: new Date(ms).toISOString() (reference)', () => new Date(nowMs).toISOString(), { note: 'the service formats it once per ms' }),
];

report('piece', results);
