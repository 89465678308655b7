// GET /v1/openapi.json: the published interface document (generated from the code's tables by `npm run openapi`).
import { readFileSync } from 'node:fs';
import type { Route } from '../uws.js';

const DOCUMENT = readFileSync(new URL('../openapi.json', import.meta.url), 'utf8');

export function openapiRoute(): Route {
  return {
    method: 'GET',
    pattern: '/v1/openapi.json',
    maxBodyBytes: 0,
    handler: async () => ({ status: 200, headers: { 'cache-control': 'public, max-age=300' }, text: DOCUMENT }),
  };
}
