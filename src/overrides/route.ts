// Override endpoints: request (scope `review`), approve / reject (scope `approve`), revoke (scope `review`),
// list and show (either scope). Everything is per account: another account's override is the same 404 as an
// unknown one. Redis trouble is a 503 with Retry-After (management calls; verdicts fail closed elsewhere).
import type { Scope, StoredApiKey } from '../auth/api-key.js';
import type { CallGate } from '../auth/call-gate.js';
import { AppError } from '../errors.js';
import { parseJsonBody } from '../http/json-body.js';
import type { HttpRequest, HttpResponse, Route } from '../http/types.js';
import type { Logger } from '../log.js';
import { normaliseMcNumber } from '../core/mc-number.js';
import { createOverrideBody, decideBody, isOverrideStatus, OVERRIDE_STATUSES, overrideView, pageOverrides } from './model.js';
import type { OverrideService } from './service.js';
import type { OverrideStore } from './store.js';

const BODY_LIMIT = 16 * 1024;
const UNAVAILABLE_RETRY_SECONDS = '5';

export interface OverrideRouteDeps {
  gate: CallGate;
  service: OverrideService;
  store: OverrideStore;
  now(): number;
  log: Logger;
}

const validation = (detail: string, path: string, message: string) => new AppError('validation_failed', detail, { errors: [{ path, message }] });

/** An actor-bound key acts as its person (a different `actor` in the body is refused); any other key names one. */
export function actorOf(key: StoredApiKey, given: string | undefined): string {
  const bound = key.actor ?? null;
  if (bound !== null) {
    if (given !== undefined && given.trim() !== bound) throw validation('This key acts as its bound actor; omit actor or send the same name.', 'actor', `must be omitted or ${JSON.stringify(bound)}`);
    return bound;
  }
  if (given === undefined) throw validation('Name the person making this change in actor.', 'actor', 'required: a string of 1-128 characters');
  return given;
}

/** Runs a handler body for a key holding one of `scopes`; Redis failures become 503, AppErrors pass through. */
export function managementRoute(gate: CallGate, log: Logger, method: Route['method'], pattern: string, maxBodyBytes: number,
  scopes: readonly [Scope, ...Scope[]], act: (key: StoredApiKey, request: HttpRequest) => Promise<HttpResponse>): Route {
  return {
    method, pattern, maxBodyBytes,
    async handler(request) {
      const { key, rateHeaders } = await gate.admit(request, scopes);
      try {
        const response = await act(key, request);
        return { ...response, headers: { 'cache-control': 'no-store', ...rateHeaders, ...response.headers }, log: { key_id: key.id, ...response.log } };
      } catch (error) {
        if (error instanceof AppError) throw error;
        log.warn({ err: error, request_id: request.requestId }, 'override storage unavailable');
        throw new AppError('service_unavailable', 'Overrides are temporarily unavailable; retry shortly.', { cause: error, headers: { 'retry-after': UNAVAILABLE_RETRY_SECONDS } });
      }
    },
  };
}

function intParam(params: URLSearchParams, name: string, fallback: number, min: number, max: number): number {
  const raw = params.get(name);
  if (raw === null) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) throw validation(`Query parameter ${name} is out of range.`, name, `must be an integer from ${min} to ${max}`);
  return value;
}

/** What an override id looks like (newOverrideId); anything else is unknown. */
export const OVERRIDE_ID = /^ovr_[0-9a-f]{32}$/;

export function overrideRoutes(deps: OverrideRouteDeps): Route[] {
  const route = (method: Route['method'], pattern: string, maxBodyBytes: number, scopes: readonly [Scope, ...Scope[]],
    act: (key: StoredApiKey, request: HttpRequest) => Promise<HttpResponse>) => managementRoute(deps.gate, deps.log, method, pattern, maxBodyBytes, scopes, act);
  const idOf = (request: HttpRequest): string => {
    const id = decodeURIComponent(request.params[0] ?? '');
    // A malformed id is as unknown as any other.
    if (!OVERRIDE_ID.test(id)) throw new AppError('not_found', 'No override with this id exists for this account.');
    return id;
  };
  const optionalBody = (request: HttpRequest) => (request.body.length === 0 ? {} : parseJsonBody(request.body, decideBody));
  const view = (record: Parameters<typeof overrideView>[0]) => overrideView(record, deps.now());

  return [
    route('POST', '/v1/overrides', BODY_LIMIT, ['review'], async (key, request) => {
      const body = parseJsonBody(request.body, createOverrideBody);
      const record = await deps.service.create(key.account, actorOf(key, body.actor), body);
      return { status: 201, json: view(record), log: { override_id: record.id, mc: record.mc_number } };
    }),
    route('GET', '/v1/overrides', 0, ['review', 'approve'], async (key, request) => {
      const params = new URLSearchParams(request.query);
      const status = params.get('status');
      if (status !== null && !isOverrideStatus(status)) {
        throw validation('Query parameter status is not an override status.', 'status', `one of ${OVERRIDE_STATUSES.join(', ')}`);
      }
      const mcRaw = params.get('mc_number');
      const mc = mcRaw === null ? null : normaliseMcNumber(mcRaw);
      if (mcRaw !== null && mc === null) throw validation('Query parameter mc_number is not an MC number.', 'mc_number', 'must be 1-8 digits with an optional MC prefix');
      const limit = intParam(params, 'limit', 100, 1, 500);
      const after = params.get('after');
      if (after !== null && !OVERRIDE_ID.test(after)) throw validation('Query parameter after is not a cursor of this list.', 'after', 'must be the next_cursor of a previous page');
      const page = pageOverrides(await deps.store.list(key.account), { status, mc, after, limit }, deps.now());
      return { status: 200, json: { items: page.items.map(view), next_cursor: page.next_cursor } };
    }),
    route('GET', '/v1/overrides/:id', 0, ['review', 'approve'], async (key, request) => {
      const { record } = await deps.service.read(key.account, idOf(request));
      return { status: 200, json: overrideView(record, deps.now(), await deps.store.history(key.account, record.id)) };
    }),
    route('POST', '/v1/overrides/:id/approve', BODY_LIMIT, ['approve'], async (key, request) => {
      const id = idOf(request);
      const body = optionalBody(request);
      const record = await deps.service.approve(key.account, id, actorOf(key, body.actor), body.note ?? null);
      return { status: 200, json: view(record), log: { override_id: id } };
    }),
    route('POST', '/v1/overrides/:id/reject', BODY_LIMIT, ['approve'], async (key, request) => {
      const id = idOf(request);
      const body = optionalBody(request);
      const record = await deps.service.reject(key.account, id, actorOf(key, body.actor), body.note ?? null);
      return { status: 200, json: view(record), log: { override_id: id } };
    }),
    route('DELETE', '/v1/overrides/:id', BODY_LIMIT, ['review'], async (key, request) => {
      const id = idOf(request);
      const body = optionalBody(request);
      const record = await deps.service.revoke(key.account, id, actorOf(key, body.actor), body.note ?? null);
      return { status: 200, json: view(record), log: { override_id: id } };
    }),
  ];
}
