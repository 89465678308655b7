// GET /v1/me: the presented key's id, scopes and bound actor, for a client that adapts to what its key may do
// (the console shows Approve only to a key with the approve scope). Any valid key; every bad key is the same 401.
import type { Route } from '../http/types.js';
import type { Authenticator } from './authenticate.js';

export function meRoute(auth: Authenticator): Route {
  return {
    method: 'GET',
    pattern: '/v1/me',
    maxBodyBytes: 0,
    headers: ['x-api-key'],
    async handler(request) {
      const key = await auth.identify(request.headers['x-api-key'], request.requestId);
      return {
        status: 200,
        headers: { 'cache-control': 'no-store' },
        json: { key_id: key.id, scopes: key.scopes, actor: null, label: key.label, expires_at: key.expires_at },
        log: { key_id: key.id },
      };
    },
  };
}
