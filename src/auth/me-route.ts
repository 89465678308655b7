// GET /v1/me: the presented key's id, scopes and bound actor, for a client that adapts to what its key may do
// (the console shows Approve only to a key with the approve scope). Any valid key; every bad key is the same 401.
// Draws from the key's calls budget like every authenticated call.
import type { Route } from '../http/types.js';
import type { CallGate } from './call-gate.js';

export function meRoute(gate: CallGate): Route {
  return {
    method: 'GET',
    pattern: '/v1/me',
    maxBodyBytes: 0,
    headers: ['x-api-key', 'x-forwarded-for'],
    async handler(request) {
      const { key, rateHeaders } = await gate.admitAny(request);
      return {
        status: 200,
        headers: { 'cache-control': 'no-store', ...rateHeaders },
        json: { key_id: key.id, scopes: key.scopes, actor: key.actor ?? null, label: key.label, expires_at: key.expires_at },
        log: { key_id: key.id },
      };
    },
  };
}
