import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { REASON_CODES } from '../../src/core/reasons.js';
import { AppError, ERROR_KINDS } from '../../src/errors.js';
import { PROBLEMS, toProblem } from '../../src/http/problem.js';
import { z } from 'zod';
import { monitoringRoutes, replayBody, watchRefBody, webhookBody, type MonitoringRouteDeps } from '../../src/monitoring/routes.js';

// The API reference (linked from the README) documents every problem code, reason code and demo carrier.
const reference = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');

describe('problem table', () => {
  it('has exactly one row per error kind, with a 4xx/5xx status', () => {
    expect(Object.keys(PROBLEMS).sort()).toEqual([...ERROR_KINDS].sort());
    for (const { status } of Object.values(PROBLEMS)) expect(status).toBeGreaterThanOrEqual(400);
  });

  it('renders RFC 9457 bodies with a stable code and capped field errors', () => {
    const errors = Array.from({ length: 30 }, (_, index) => ({ path: `items.${index}.mc`, message: 'must be a string' }));
    const problem = toProblem(new AppError('validation_failed', 'bad rows', { errors, extensions: { hint: 1 } }), '/v1/batch');
    expect(problem.status).toBe(422);
    expect(problem.headers['content-type']).toBe('application/problem+json');
    expect(problem.body).toMatchObject({ status: 422, code: 'validation_failed', detail: 'bad rows', instance: '/v1/batch', hint: 1 });
    expect(String(problem.body.type)).toMatch(/validation_failed$/);
    expect(problem.body.errors).toHaveLength(20);
  });

  it('turns anything unexpected into a generic 500 without internals', () => {
    const problem = toProblem(new Error('ECONNREFUSED 10.0.0.7:6379 at Socket.connect'));
    expect(problem.status).toBe(500);
    expect(JSON.stringify(problem.body)).not.toContain('10.0.0.7');
    expect(JSON.stringify(problem.body)).not.toContain('Socket');
  });
});

describe('docs/api.md stays in step with the code', () => {
  it.each(ERROR_KINDS)('documents problem code %s', (kind) => {
    expect(reference).toContain(`\`${kind}\``);
  });

  it.each(REASON_CODES)('documents reason code %s', (code) => {
    expect(reference).toContain(`\`${code}\``);
  });
});

describe('OpenAPI document stays in step with the code', () => {
  const openapi = JSON.parse(readFileSync(new URL('../../src/http/openapi.json', import.meta.url), 'utf8'));

  it('lists exactly the reason codes and problem codes of the code tables', () => {
    expect(openapi.components.schemas.ReasonCode.enum).toEqual(REASON_CODES);
    expect(openapi.components.schemas.ProblemCode.enum).toEqual([...ERROR_KINDS]);
    expect(openapi['x-problem-statuses']).toEqual(Object.fromEntries(ERROR_KINDS.map((kind) => [kind, PROBLEMS[kind].status])));
  });

  it('describes every field of the verdict', () => {
    expect(openapi.components.schemas.Verdict.required).toEqual([
      'eligible', 'found', 'tier', 'reasons', 'degraded', 'decision_id', 'ruleset_version', 'policy_version', 'data_as_of', 'evaluated_at', 'cache_hit', 'mc_number', 'carrier',
      'evidence',
    ]);
  });

  it('describes every monitoring route, with the monitoring scope', () => {
    // Building the route table touches none of the dependencies (they are used per request).
    const routes = monitoringRoutes({} as MonitoringRouteDeps);
    expect(routes.length).toBeGreaterThan(10);
    for (const route of routes) {
      const path = route.pattern.replace(/:(\w+)/g, '{$1}');
      const operation = openapi.paths[path]?.[route.method.toLowerCase()];
      expect(operation, `${route.method} ${path}`).toBeDefined();
      expect(operation.security).toEqual([{ apiKey: ['monitoring'] }]);
    }
    expect(Object.keys(openapi.webhooks)).toEqual(['monitoringEvent']);
  });

  it('publishes the monitoring request schemas the routes validate with', () => {
    const json = (schema: z.ZodType) => {
      const { $schema: _draft, ...rest } = z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>;
      return rest;
    };
    expect(openapi.components.schemas.WebhookCreate).toEqual(json(webhookBody));
    expect(openapi.components.schemas.WebhookReplay).toEqual(json(replayBody));
    expect(openapi.components.schemas.WatchRefBody).toEqual(json(watchRefBody));
  });
});

describe('docs/api.md lists the sample carriers the demo serves', () => {
  it('names every demo MC number with its tier', async () => {
    const { DEMO_CARRIERS } = await import('../../src/ingest/sample-carriers.js');
    for (const carrier of DEMO_CARRIERS) expect(reference).toContain(`| \`${carrier.mc}\` | ${carrier.tier ?? '—'} |`);
  });
});
