// Monitoring endpoints (scope `monitoring`): watch list, webhook endpoints, pull feed. Everything is per
// account: any key of the account sees the account's list, endpoints and events, and nothing else (another
// account's endpoint id is the same 404 as an unknown one). Every call draws from the key's calls budget
// (src/ratelimit/call-budget.ts). Redis trouble is a 503 with Retry-After (these are
// management calls; the fail-closed 200 rule is for verdicts).
import { z } from 'zod';
import type { StoredApiKey } from '../auth/api-key.js';
import type { CallGate } from '../auth/call-gate.js';
import { normaliseMcNumber } from '../core/mc-number.js';
import { AppError, type FieldError } from '../errors.js';
import { parseJsonBody } from '../http/json-body.js';
import type { HttpRequest, HttpResponse, Route } from '../http/types.js';
import type { Logger } from '../log.js';
import type { Verdict } from '../core/verdict.js';
import { decodeCursor, encodeCursor, type EventStore } from './event-store.js';
import { EVENT_TYPES } from './events-model.js';
import { checkWebhookUrl } from './ssrf.js';
import { endpointView, MAX_ENDPOINTS_PER_ACCOUNT, REPLAY_QUEUE_MAX, type WebhookStore } from './webhook-store.js';
import type { WatchEntry, WatchItem, WatchListStore } from './watchlist.js';

export const MAX_WATCH_ROWS = 5000;
const WATCH_BODY_LIMIT = 1024 * 1024;
const SMALL_BODY_LIMIT = 16 * 1024;
const UNAVAILABLE_RETRY_SECONDS = '5';
const MAX_REF_CHARS = 256;

export interface MonitoringRouteDeps {
  gate: CallGate;
  watch: WatchListStore;
  webhooks: WebhookStore;
  events: EventStore;
  /** The account's current verdict of a carrier: its policy, its overrides (no decision record: a listing is not a decision). */
  evaluate: (mc: string, account: string) => Promise<Verdict>;
  maxWatched: number;
  allowPrivateWebhooks: boolean;
  log: Logger;
  /** Resolves once the stores' connection is usable (or after a short wait): no 503 just because it is starting. */
  ready?: () => Promise<void>;
}

const unavailable = (cause?: unknown) => new AppError('service_unavailable', 'Monitoring is temporarily unavailable; retry shortly.', {
  cause, headers: { 'retry-after': UNAVAILABLE_RETRY_SECONDS },
});

function validation(detail: string, errors: FieldError[]): AppError {
  return new AppError('validation_failed', detail, { errors });
}

/** A path segment percent-decoded, or null when its encoding is malformed. */
export function decodePathSegment(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

function intParam(params: URLSearchParams, name: string, fallback: number, min: number, max: number): number {
  const raw = params.get(name);
  if (raw === null) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw validation(`Query parameter ${name} is out of range.`, [{ path: name, message: `must be an integer from ${min} to ${max}` }]);
  }
  return value;
}

/** Parses the watch-list bulk body in the batch style: shape, emptiness, size, then the rows one by one. */
export function parseWatchItems(body: unknown): WatchItem[] {
  const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
  if (!isObject(body) || !Array.isArray(body.items)) {
    throw validation('The body must be a JSON object with an "items" array.', [{ path: isObject(body) ? 'items' : '(body)', message: 'must be an array of row objects' }]);
  }
  const items: unknown[] = body.items;
  if (items.length === 0) throw new AppError('roster_empty', 'The watch list import has no rows; send 1 to 5000.');
  if (items.length > MAX_WATCH_ROWS) throw new AppError('roster_too_large', `The import has ${items.length} rows; at most ${MAX_WATCH_ROWS} are accepted per request.`);
  const errors: FieldError[] = [];
  let invalid = 0;
  const rows = items.map((item, index): WatchItem | null => {
    const fail = (path: string, message: string) => {
      invalid += 1;
      if (errors.length < 20) errors.push({ path, message });
      return null;
    };
    if (!isObject(item)) return fail(`items.${index}`, 'must be an object');
    const mc = typeof item.mc === 'string' ? normaliseMcNumber(item.mc) : null;
    if (mc === null) return fail(`items.${index}.mc`, 'must be an MC number: 1-8 digits, optional MC prefix');
    const ref = item.ref;
    if (ref !== undefined && ref !== null && (typeof ref !== 'string' || ref.length > MAX_REF_CHARS)) {
      return fail(`items.${index}.ref`, `must be a string of at most ${MAX_REF_CHARS} characters`);
    }
    return { mc, ref: typeof ref === 'string' ? ref : null };
  });
  if (invalid > 0) throw validation(`${invalid} row(s) of the watch list import are invalid.`, errors);
  return rows as WatchItem[];
}

// Exported for scripts/openapi.ts, which publishes these as the request schemas (z.toJSONSchema), not a copy.
export const watchRefBody = z.object({ ref: z.string().max(MAX_REF_CHARS).nullable().optional() });

export const webhookBody = z.object({
  url: z.string().max(2048),
  event_types: z.array(z.enum(EVENT_TYPES)).max(EVENT_TYPES.length).optional(),
  description: z.string().max(256).nullable().optional(),
});

export const replayBody = z.union([
  z.object({ event_id: z.string().min(1).max(64) }),
  z.object({ from: z.iso.datetime({ offset: true }), to: z.iso.datetime({ offset: true }).optional() }),
]);

/** A route's body: the key admitted for it and the request; the wrapper adds headers and maps storage errors. */
type Handler = (deps: MonitoringRouteDeps, key: StoredApiKey, request: HttpRequest) => Promise<HttpResponse>;

/** Admits the key (scope `monitoring`), runs the handler; Redis failures become 503, AppErrors pass through. */
function guarded(deps: MonitoringRouteDeps, method: Route['method'], pattern: string, maxBodyBytes: number, handle: Handler): Route {
  return {
    method, pattern, maxBodyBytes,
    async handler(request) {
      const { key, rateHeaders } = await deps.gate.admit(request, ['monitoring']);
      try {
        await deps.ready?.();
        const response = await handle(deps, key, request);
        return { ...response, headers: { 'cache-control': 'no-store', ...rateHeaders, ...response.headers }, log: { key_id: key.id, ...response.log } };
      } catch (error) {
        if (error instanceof AppError) throw error;
        deps.log.warn({ err: error, request_id: request.requestId }, 'monitoring storage unavailable');
        throw unavailable(error);
      }
    },
  };
}

/** The MC number in the path; a malformed percent-encoding (`%ZZ`) is the same 422 as any other bad MC number. */
function mcParam(request: HttpRequest): string {
  const decoded = decodePathSegment(request.params[0] ?? '');
  const mc = decoded === null ? null : normaliseMcNumber(decoded);
  if (mc === null) throw validation('The path does not name a valid MC number.', [{ path: 'mc', message: 'must be 1-8 digits with an optional MC prefix' }]);
  return mc;
}

async function addOrFail(deps: MonitoringRouteDeps, key: StoredApiKey, items: WatchItem[]) {
  const result = await deps.watch.add(key.account, items, deps.maxWatched);
  if (result.kind === 'limit') {
    throw new AppError('validation_failed', `The account watches ${result.count} carriers; the limit is ${result.limit}.`, {
      errors: [{ path: 'items', message: `would exceed the per-account limit of ${result.limit} watched carriers` }],
      extensions: { watched: result.count, limit: result.limit },
    });
  }
  return result;
}

async function endpointOf(deps: MonitoringRouteDeps, key: StoredApiKey, request: HttpRequest) {
  const endpoint = await deps.webhooks.get(key.account, request.params[0] ?? '');
  if (!endpoint) throw new AppError('not_found', 'No webhook endpoint with this id exists for this account.');
  return endpoint;
}

const watchOne: Handler = async (deps, key, request) => {
  const mc = mcParam(request);
  let ref: string | null = null;
  if (request.body.length > 0) ref = parseJsonBody(request.body, watchRefBody).ref ?? null;
  const result = await addOrFail(deps, key, [{ mc, ref }]);
  return { status: result.added > 0 ? 201 : 200, json: { mc, watching: true, added: result.added > 0 }, log: { mc } };
};

const unwatchOne: Handler = async (deps, key, request) => {
  const mc = mcParam(request);
  if (!await deps.watch.remove(key.account, mc)) throw new AppError('not_found', 'This account does not watch this carrier.');
  return { status: 204, text: '', log: { mc } };
};

const watchMany: Handler = async (deps, key, request) => {
  const items = parseWatchItems(parseJsonBody(request.body, z.unknown()));
  const result = await addOrFail(deps, key, items);
  return { status: 200, json: { added: result.added, already_watched: result.already, watched: await deps.watch.count(key.account) }, log: { rows: items.length } };
};

/** A watched carrier as listed: when and why it was added, and its verdict for the account now. */
function listedItem(item: WatchEntry, verdict: Verdict) {
  return {
    ...item,
    verdict: {
      eligible: verdict.eligible, tier: verdict.tier, reasons: verdict.reasons, degraded: verdict.degraded,
      ruleset_version: verdict.ruleset_version, policy_version: verdict.policy_version, data_as_of: verdict.data_as_of,
      dot_number: verdict.carrier?.dot_number ?? null, legal_name: verdict.carrier?.legal_name ?? null,
      ...(verdict.overrides === undefined ? {} : { overrides: verdict.overrides }),
    },
  };
}

const listWatched: Handler = async (deps, key, request) => {
  const params = new URLSearchParams(request.query);
  const limit = intParam(params, 'limit', 100, 1, 500);
  const afterRaw = params.get('after');
  const after = afterRaw === null ? null : normaliseMcNumber(afterRaw);
  if (afterRaw !== null && after === null) throw validation('Query parameter after is not a cursor of this list.', [{ path: 'after', message: 'must be the next_cursor of a previous page' }]);
  const page = await deps.watch.page(key.account, after, limit);
  const verdicts = await Promise.all(page.items.map((item) => deps.evaluate(item.mc, key.account)));
  return {
    status: 200,
    json: {
      items: page.items.map((item, index) => listedItem(item, verdicts[index] as Verdict)),
      watched: await deps.watch.count(key.account),
      next_cursor: page.next,
    },
  };
};

const createWebhook: Handler = async (deps, key, request) => {
  const body = parseJsonBody(request.body, webhookBody);
  const checked = await checkWebhookUrl(body.url, deps.allowPrivateWebhooks);
  if (!checked.ok) throw validation('The webhook URL is not acceptable.', [{ path: 'url', message: checked.problem }]);
  // Deliveries start with the events stored from now on (a replay reaches back into the retention window).
  const start = (await deps.events.newestId(key.account)) ?? '0-0';
  const created = await deps.webhooks.create(key.account, {
    url: checked.url.toString(), event_types: body.event_types ?? [], description: body.description ?? null,
  }, start);
  if (!created) {
    throw validation(`An account may have at most ${MAX_ENDPOINTS_PER_ACCOUNT} webhook endpoints.`, [{ path: '(body)', message: 'endpoint limit reached' }]);
  }
  return { status: 201, json: { ...endpointView(created.endpoint), secret: created.secret }, log: { endpoint: created.endpoint.id } };
};

const listWebhooks: Handler = async (deps, key) => ({
  status: 200, json: { items: (await deps.webhooks.list(key.account)).map(endpointView) },
});

const showWebhook: Handler = async (deps, key, request) => {
  const endpoint = await endpointOf(deps, key, request);
  const state = await deps.webhooks.state(key.account, endpoint.id);
  return {
    status: 200,
    json: {
      ...endpointView(endpoint),
      delivery: {
        cursor: encodeCursor(state.cursor), failing_attempts: state.attempt,
        next_attempt_at: state.nextAt > 0 ? new Date(state.nextAt).toISOString() : null,
        failing_since: state.firstFailedAt > 0 ? new Date(state.firstFailedAt).toISOString() : null,
      },
    },
  };
};

const deleteWebhook: Handler = async (deps, key, request) => {
  const endpoint = await endpointOf(deps, key, request);
  await deps.webhooks.remove(key.account, endpoint.id);
  return { status: 204, text: '', log: { endpoint: endpoint.id } };
};

const rotateSecret: Handler = async (deps, key, request) => {
  const rotated = await deps.webhooks.rotate(await endpointOf(deps, key, request));
  return { status: 200, json: { ...endpointView(rotated.endpoint), secret: rotated.secret }, log: { endpoint: rotated.endpoint.id } };
};

const enableWebhook: Handler = async (deps, key, request) => {
  const endpoint = await endpointOf(deps, key, request);
  const dropped = await deps.webhooks.restart(key.account, endpoint.id);
  return {
    status: 200, json: endpointView(await deps.webhooks.setStatus(endpoint, 'active', null)),
    log: { endpoint: endpoint.id, replay_dropped: dropped ?? undefined },
  };
};

const listDeliveries: Handler = async (deps, key, request) => {
  const endpoint = await endpointOf(deps, key, request);
  const limit = intParam(new URLSearchParams(request.query), 'limit', 100, 1, 1000);
  return { status: 200, json: { items: await deps.webhooks.readLog(key.account, endpoint.id, limit) } };
};

/** The stream ids a replay body names: one event by id, or every event kept in a time range. */
async function replayIds(deps: MonitoringRouteDeps, account: string, body: z.infer<typeof replayBody>): Promise<string[]> {
  if ('event_id' in body) {
    const found = await deps.events.byId(account, body.event_id);
    if (!found) throw new AppError('not_found', 'No event with this id is kept for this account.');
    return [found.streamId];
  }
  const to = body.to ? Date.parse(body.to) : Date.now();
  return (await deps.events.range(account, Date.parse(body.from), to, 10_000)).map((entry) => entry.streamId);
}

const replayEvents: Handler = async (deps, key, request) => {
  const endpoint = await endpointOf(deps, key, request);
  const ids = await replayIds(deps, key.account, parseJsonBody(request.body, replayBody));
  const queued = await deps.webhooks.queueReplay(key.account, endpoint.id, ids);
  if (queued.added === null) {
    throw new AppError('replay_queue_full', `The endpoint has ${queued.queued} replays queued; at most ${REPLAY_QUEUE_MAX} may wait at once. Retry when they are delivered, or ask for a shorter range.`, {
      extensions: { replays_queued: queued.queued, limit: REPLAY_QUEUE_MAX },
    });
  }
  // queued: the events this request added; an event already waiting for replay is not queued twice.
  return {
    status: 202, json: { queued: queued.added, already_queued: ids.length - queued.added, replays_pending: queued.queued },
    log: { endpoint: endpoint.id, replay: queued.added },
  };
};

const readEvents: Handler = async (deps, key, request) => {
  const params = new URLSearchParams(request.query);
  const limit = intParam(params, 'limit', 100, 1, 1000);
  const afterRaw = params.get('after');
  const after = afterRaw === null || afterRaw === '' ? null : decodeCursor(afterRaw);
  if (afterRaw !== null && afterRaw !== '' && after === null) {
    throw validation('Query parameter after is not a cursor of this feed.', [{ path: 'after', message: 'must be a next_cursor (or an event cursor) this feed returned' }]);
  }
  const entries = await deps.events.after(key.account, after, limit);
  const last = entries[entries.length - 1];
  return {
    status: 200,
    json: {
      events: entries.map((entry) => entry.event),
      next_cursor: last ? encodeCursor(last.streamId) : afterRaw || (await deps.events.newestId(key.account).then((id) => (id ? encodeCursor(id) : null))),
      has_more: entries.length === limit,
    },
  };
};

export function monitoringRoutes(deps: MonitoringRouteDeps): Route[] {
  const route = (method: Route['method'], pattern: string, maxBodyBytes: number, handle: Handler) => guarded(deps, method, pattern, maxBodyBytes, handle);
  return [
    route('PUT', '/v1/watchlist/:mc', SMALL_BODY_LIMIT, watchOne),
    route('DELETE', '/v1/watchlist/:mc', 0, unwatchOne),
    route('POST', '/v1/watchlist', WATCH_BODY_LIMIT, watchMany),
    route('GET', '/v1/watchlist', 0, listWatched),
    route('POST', '/v1/webhooks', SMALL_BODY_LIMIT, createWebhook),
    route('GET', '/v1/webhooks', 0, listWebhooks),
    route('GET', '/v1/webhooks/:id', 0, showWebhook),
    route('DELETE', '/v1/webhooks/:id', 0, deleteWebhook),
    route('POST', '/v1/webhooks/:id/rotate-secret', SMALL_BODY_LIMIT, rotateSecret),
    route('POST', '/v1/webhooks/:id/enable', SMALL_BODY_LIMIT, enableWebhook),
    route('GET', '/v1/webhooks/:id/deliveries', 0, listDeliveries),
    route('POST', '/v1/webhooks/:id/replay', SMALL_BODY_LIMIT, replayEvents),
    route('GET', '/v1/events', 0, readEvents),
  ];
}
