// GET /v1/carriers/{mc}/history: the identity changes recorded for the carrier an MC number names in the serving
// snapshot (the census DOT record behind it), oldest first. Scope `eligibility`; each read draws from the key's
// calls budget. An MC the snapshot does not know is a 404; an MC listed under several DOT records lists each.
// Redis trouble is a 503 with Retry-After.
import type { CallGate } from '../auth/call-gate.js';
import { IDENTITY_KIND } from '../core/identity.js';
import { normaliseMcNumber } from '../core/mc-number.js';
import { AppError } from '../errors.js';
import type { HttpResponse, Route } from '../http/types.js';
import type { Logger } from '../log.js';
import type { RedisClient } from '../redis/connection.js';
import { decodeCarrier } from '../store/carrier-codec.js';
import { carrierBucket, type RedisKeys } from '../store/keys.js';
import type { IdentityChange } from './codec.js';
import type { IdentityKeys } from './keys.js';
import { readHistory } from './recorder.js';

export interface HistoryDeps {
  gate: CallGate;
  redis: RedisClient;
  keys: RedisKeys;
  identityKeys: IdentityKeys;
  log: Logger;
}

export interface HistoryView {
  mc_number: string;
  carriers: Array<{ dot_number: string; changes: Array<IdentityChange & { kind: string }> }>;
}

/** The history of every DOT record the MC names in the serving snapshot; null when it names none. */
export async function carrierHistory(deps: Pick<HistoryDeps, 'redis' | 'keys' | 'identityKeys'>, mc: string): Promise<HistoryView | null> {
  const version = await deps.redis.get(deps.keys.snapshotCurrent);
  if (!version) return null;
  const lookup = decodeCarrier(mc, await deps.redis.hget(deps.keys.carrierBucket(version, carrierBucket(mc)), mc));
  const dots = lookup.kind === 'found' ? (lookup.record.dot ? [lookup.record.dot] : []) : lookup.kind === 'ambiguous' ? lookup.dot_numbers : null;
  if (dots === null) return null;
  const carriers = [];
  for (const dot of dots) {
    const changes = await readHistory(deps.redis, deps.identityKeys, dot);
    carriers.push({ dot_number: dot, changes: changes.map((change) => ({ ...change, kind: IDENTITY_KIND[change.field] })) });
  }
  return { mc_number: mc, carriers };
}

export function historyRoute(deps: HistoryDeps): Route {
  return {
    method: 'GET',
    pattern: '/v1/carriers/:mc/history',
    maxBodyBytes: 0,
    headers: ['x-api-key', 'x-forwarded-for'],
    async handler(request): Promise<HttpResponse> {
      const { key, rateHeaders } = await deps.gate.admit(request, ['eligibility']);
      const raw = decodeURIComponent(request.params[0] ?? '');
      const mc = normaliseMcNumber(raw);
      if (mc === null) throw new AppError('validation_failed', `"${raw.slice(0, 40)}" is not an MC number.`);
      let view: HistoryView | null;
      try {
        view = await carrierHistory(deps, mc);
      } catch (error) {
        deps.log.warn({ err: error, request_id: request.requestId, mc }, 'identity history unreadable');
        throw new AppError('service_unavailable', 'Carrier history is temporarily unavailable; retry shortly.', {
          cause: error, headers: { 'retry-after': '5' },
        });
      }
      if (!view) throw new AppError('not_found', 'No carrier with this MC number is in the serving snapshot.');
      return { status: 200, headers: { 'cache-control': 'no-store', ...rateHeaders }, json: view, log: { key_id: key.id, mc } };
    },
  };
}
