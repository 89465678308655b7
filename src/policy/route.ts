// Account policy endpoints (scope `policy`): publish the next version, read the current one or any earlier one,
// and a dry run that shows which verdicts a candidate would change before it is published. Everything is the
// caller's account's own; there is no way to name another account.
import { z } from 'zod';
import type { CallGate } from '../auth/call-gate.js';
import { normaliseMcNumber } from '../core/mc-number.js';
import type { PublishedRuleSet } from '../core/ruleset.js';
import { AppError } from '../errors.js';
import { parseJsonBody } from '../http/json-body.js';
import type { HttpRequest, HttpResponse, Route } from '../http/types.js';
import type { Logger } from '../log.js';
import type { PolicyDocument, PublishedPolicy } from './document.js';
import { validatePolicy } from './document.js';
import type { DryRunResult } from './dry-run.js';
import type { PolicyStore } from './store.js';

export const MAX_DRY_RUN_MCS = 5000;
const BODY_LIMIT = 512 * 1024;

export interface PolicyRouteDeps {
  gate: CallGate;
  store: PolicyStore;
  /** The global rule set in force: the floor every policy is held against. */
  floor: () => PublishedRuleSet | null;
  dryRun: (account: string, candidate: PolicyDocument, mcs: readonly string[]) => Promise<DryRunResult>;
  log: Logger;
}

const unavailable = (cause?: unknown) => new AppError('service_unavailable', 'Policies are temporarily unavailable; retry shortly.', {
  cause, headers: { 'retry-after': '5' },
});

/** The caller's key (scope `policy`) and its RateLimit headers; every policy call draws from the calls budget. */
const authorise = (deps: PolicyRouteDeps, request: HttpRequest) => deps.gate.admit(request, ['policy']);

function floorOrUnavailable(deps: PolicyRouteDeps) {
  const floor = deps.floor();
  if (!floor) throw unavailable();
  return floor;
}

/** A policy as the API shows it. */
export function policyView(policy: PublishedPolicy) {
  return {
    version: policy.version, sha256: policy.sha256, published_at: policy.published_at, published_by: policy.published_by,
    policy: policy.policy,
  };
}

function validated(candidate: unknown, floor: PublishedRuleSet): PolicyDocument {
  const result = validatePolicy(candidate, floor.rules);
  if (!result.ok) {
    throw new AppError('policy_below_floor', 'The policy is invalid or looser than the rule set in force; each problem names its field.', {
      errors: result.errors, extensions: { ruleset_version: floor.version },
    });
  }
  return result.policy;
}

const dryRunBody = z.object({
  policy: z.unknown(),
  mc_numbers: z.array(z.string()).max(MAX_DRY_RUN_MCS).optional(),
}).strict();

const publishBody = z.object({ policy: z.unknown().optional(), actor: z.string().min(1).max(128).optional() }).passthrough();

export function policyRoutes(deps: PolicyRouteDeps): Route[] {
  const guard = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      if (error instanceof AppError) throw error;
      deps.log.warn({ err: error }, 'policy storage unavailable');
      throw unavailable(error);
    }
  };
  return [
    {
      method: 'PUT', pattern: '/v1/policy', maxBodyBytes: BODY_LIMIT, headers: ['x-api-key'],
      async handler(request): Promise<HttpResponse> {
        const { key, rateHeaders } = await authorise(deps, request);
        const body = parseJsonBody(request.body, publishBody);
        // The document itself, or {policy, actor}: who published it is recorded with the version.
        const candidate = body.policy !== undefined ? body.policy : Object.fromEntries(Object.entries(body).filter(([k]) => k !== 'actor'));
        const policy = validated(candidate, floorOrUnavailable(deps));
        const published = await guard(() => deps.store.publish(key.account, policy, body.actor ?? key.id));
        return { status: 200, headers: { 'cache-control': 'no-store', ...rateHeaders }, json: policyView(published), log: { key_id: key.id, policy_version: published.version } };
      },
    },
    {
      method: 'GET', pattern: '/v1/policy', maxBodyBytes: 0, headers: ['x-api-key'],
      async handler(request): Promise<HttpResponse> {
        const { key, rateHeaders } = await authorise(deps, request);
        const current = await guard(() => deps.store.current(key.account));
        if (!current) throw new AppError('not_found', 'This account has no policy; the global rule set decides its verdicts.');
        return { status: 200, headers: { 'cache-control': 'no-store', ...rateHeaders }, json: policyView(current), log: { key_id: key.id } };
      },
    },
    {
      method: 'GET', pattern: '/v1/policy/versions/:n', maxBodyBytes: 0, headers: ['x-api-key'],
      async handler(request): Promise<HttpResponse> {
        const { key, rateHeaders } = await authorise(deps, request);
        const n = Number(request.params[0]);
        const found = Number.isSafeInteger(n) && n >= 1 ? await guard(() => deps.store.version(key.account, n)) : null;
        if (!found) throw new AppError('not_found', 'No policy version with this number exists for this account.');
        return { status: 200, headers: { 'cache-control': 'no-store', ...rateHeaders }, json: policyView(found), log: { key_id: key.id } };
      },
    },
    {
      method: 'POST', pattern: '/v1/policy/dry-run', maxBodyBytes: BODY_LIMIT, headers: ['x-api-key'],
      async handler(request): Promise<HttpResponse> {
        const { key, rateHeaders } = await authorise(deps, request);
        const body = parseJsonBody(request.body, dryRunBody);
        const mcs: string[] = [];
        const errors = (body.mc_numbers ?? []).flatMap((raw, index) => {
          const mc = normaliseMcNumber(raw);
          if (mc === null) return [{ path: `mc_numbers.${index}`, message: 'must be an MC number: 1-8 digits, optional MC prefix' }];
          mcs.push(mc);
          return [];
        });
        if (errors.length > 0) throw new AppError('validation_failed', 'Some MC numbers are not MC numbers.', { errors: errors.slice(0, 20) });
        const candidate = validated(body.policy, floorOrUnavailable(deps));
        const result = await guard(() => deps.dryRun(key.account, candidate, mcs));
        return { status: 200, headers: { 'cache-control': 'no-store', ...rateHeaders }, json: result, log: { key_id: key.id } };
      },
    },
  ];
}
