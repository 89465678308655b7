// Authentication and authorisation for a request: 401 for every kind of bad key (one body; the log says which),
// 403 for a missing scope. When Redis cannot be asked about an uncached key, the caller learns that instead of
// a false 401, so the eligibility endpoint can still fail closed with a degraded verdict.
import { AppError } from '../errors.js';
import type { Logger } from '../log.js';
import { checkKey, parseApiKey, type Scope, type StoredApiKey } from './api-key.js';
import type { KeyStore } from './key-store.js';

export type AuthResult = { kind: 'ok'; key: StoredApiKey } | { kind: 'backend_unavailable' };

const UNAUTHORIZED_DETAIL = 'Send a valid, active API key in the x-api-key header.';

export class Authenticator {
  constructor(private readonly store: KeyStore, private readonly log: Logger, private readonly now: () => number = Date.now) {}

  /** Resolves the key or throws the 401/403 AppError. */
  async authenticate(presented: string | undefined, scope: Scope, requestId: string): Promise<AuthResult> {
    const reject = (why: string, keyId?: string): never => {
      this.log.info({ request_id: requestId, key_id: keyId, why }, 'api key rejected');
      throw new AppError('unauthorized', UNAUTHORIZED_DETAIL, { headers: { 'www-authenticate': 'ApiKey header="x-api-key"' } });
    };
    if (!presented) return reject('missing');
    const parsed = parseApiKey(presented);
    if (!parsed) return reject('malformed');
    let stored: StoredApiKey | null;
    try {
      stored = await this.store.find(parsed.id);
    } catch {
      return { kind: 'backend_unavailable' };
    }
    const rejection = checkKey(stored, parsed.secret, this.now());
    if (rejection || !stored) return reject(rejection ?? 'unknown', parsed.id);
    if (!stored.scopes.includes(scope)) {
      this.log.info({ request_id: requestId, key_id: stored.id, scope }, 'api key lacks scope');
      throw new AppError('forbidden', `This API key does not have the ${scope} scope.`);
    }
    return { kind: 'ok', key: stored };
  }
}
