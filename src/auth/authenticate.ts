// Authentication and authorisation for a request: 401 for every kind of bad key (one body; the log says which),
// 403 for a missing scope. When Redis cannot be asked about an uncached key, the caller learns that instead of
// a false 401, so the eligibility endpoint can still fail closed with a degraded verdict.
import { timingSafeEqual } from 'node:crypto';
import { AppError } from '../errors.js';
import type { Logger } from '../log.js';
import { checkKey, parseApiKey, SECRET_CHARS, splitKeyShape, type KeyRejection, type Scope, type StoredApiKey } from './api-key.js';
import type { KeyStore } from './key-store.js';

export type AuthResult = { kind: 'ok'; key: StoredApiKey } | { kind: 'backend_unavailable' };

/** A cached record's last successful verification (see Authenticator.verified). */
interface Verified {
  secret: Buffer;
  /** expires_at parsed (NaN when unreadable, which never compares as expired: checkKey's reading too). */
  expiresAtMs: number | null;
  ok: { kind: 'ok'; key: StoredApiKey };
}

/** Scratch for sameSecret, as long as every well-formed secret. */
const PRESENTED_SECRET = Buffer.alloc(SECRET_CHARS);

const UNAUTHORIZED_DETAIL = 'Send a valid, active API key in the x-api-key header.';

export class Authenticator {
  /**
   * What was learned the last time each cached record was verified: the secret that matched it, its expiry as a
   * number and the ok result to hand out. A repeat caller is then checked by comparing the presented secret with
   * that secret (timingSafeEqual, fixed length) instead of hashing it again (SHA-256 per request was the largest
   * auth cost on the hot path), and neither the expiry date is parsed nor a result allocated per request (round 7,
   * bench/HISTORY.md). Keyed by the record object, so a key change (new epoch → new record objects) forgets it, and
   * a secret that never verified is never stored.
   */
  private readonly verified = new WeakMap<StoredApiKey, Verified>();

  constructor(private readonly store: KeyStore, private readonly log: Logger, private readonly now: () => number = Date.now) {}

  /** Resolves the key or throws the 401/403 AppError. */
  async authenticate(presented: string | undefined, scope: Scope, requestId: string): Promise<AuthResult> {
    const parsed = this.parse(presented, requestId);
    // The cache answers almost every request; only a miss pays for a Redis round trip.
    let stored = this.store.peek(parsed.id);
    if (stored === undefined) {
      try {
        stored = await this.store.find(parsed.id);
      } catch {
        return { kind: 'backend_unavailable' };
      }
    }
    return this.settle(stored, parsed, scope, requestId);
  }

  /**
   * The presented key's record whatever its scopes (GET /v1/me): the same checks and the same 401 as
   * authenticate(); Redis trouble on an uncached key is a 503, since no fail-closed verdict stands in for it.
   */
  async identify(presented: string | undefined, requestId: string): Promise<StoredApiKey> {
    const parsed = this.parse(presented, requestId);
    let stored = this.store.peek(parsed.id);
    if (stored === undefined) {
      try {
        stored = await this.store.find(parsed.id);
      } catch (cause) {
        throw new AppError('service_unavailable', 'API keys cannot be checked right now; retry shortly.', { cause, headers: { 'retry-after': '5' } });
      }
    }
    const rejection = checkKey(stored, parsed.secret, this.now());
    if (rejection || !stored) return this.reject(requestId, rejection ?? 'unknown', parsed.id);
    return stored;
  }

  /**
   * authenticate() without a promise when the key's record is cached (almost every request): the result, or
   * undefined when only Redis can tell (then call authenticate()). Throws the same 401/403 errors.
   */
  authenticateCached(presented: string | undefined, scope: Scope, requestId: string): AuthResult | undefined {
    const repeat = presented === undefined ? undefined : this.verifiedRepeat(presented, scope, requestId);
    if (repeat !== undefined) return repeat;
    const parsed = this.parse(presented, requestId);
    const stored = this.store.peek(parsed.id);
    return stored === undefined ? undefined : this.settle(stored, parsed, scope, requestId);
  }

  /**
   * A cached key presented with the secret it was verified with before (almost every request), checked without
   * parseApiKey's regular expression: a string of a key's shape whose id finds a cached record and whose secret
   * equals, in constant time, the one that passed the full check is well-formed by construction. The expression
   * was 1.9k of a cache-hot check's ~70k instructions under callgrind (round 17, bench/HISTORY.md). Anything
   * else (undefined) takes the full path, which names the rejection.
   */
  private verifiedRepeat(presented: string, scope: Scope, requestId: string): AuthResult | undefined {
    const split = splitKeyShape(presented);
    const stored = split === null ? undefined : this.store.peek(split.id);
    const known = stored && stored.id === split?.id ? this.verified.get(stored) : undefined;
    if (split === null || !stored || known === undefined || !this.sameSecret(known, split.secret)) return undefined;
    return this.settleVerified(stored, known, scope, requestId);
  }

  private parse(presented: string | undefined, requestId: string): { id: string; secret: string } {
    if (!presented) return this.reject(requestId, 'missing');
    return parseApiKey(presented) ?? this.reject(requestId, 'malformed');
  }

  private settle(stored: StoredApiKey | null, parsed: { id: string; secret: string }, scope: Scope, requestId: string): AuthResult {
    const known = stored ? this.verified.get(stored) : undefined;
    if (known !== undefined && stored && this.sameSecret(known, parsed.secret)) return this.settleVerified(stored, known, scope, requestId);
    const rejection = checkKey(stored, parsed.secret, this.now());
    if (stored && rejection !== 'wrong_secret' && rejection !== 'unknown') {
      this.verified.set(stored, {
        secret: Buffer.from(parsed.secret, 'latin1'),
        expiresAtMs: stored.expires_at === null ? null : Date.parse(stored.expires_at),
        ok: { kind: 'ok', key: stored },
      });
    }
    if (rejection || !stored) return this.reject(requestId, rejection ?? 'unknown', parsed.id);
    return stored.scopes.includes(scope) ? { kind: 'ok', key: stored } : this.forbid(stored, scope, requestId);
  }

  /** Same secret as verified before: what remains are checkKey's status and expiry checks, in its order, then the scope. */
  private settleVerified(stored: StoredApiKey, known: Verified, scope: Scope, requestId: string): AuthResult {
    if (stored.status !== 'active') return this.reject(requestId, 'inactive', stored.id);
    if (known.expiresAtMs !== null && known.expiresAtMs <= this.now()) return this.reject(requestId, 'expired', stored.id);
    return stored.scopes.includes(scope) ? known.ok : this.forbid(stored, scope, requestId);
  }

  /**
   * Every well-formed secret has the same length, so this comparison is constant-time like the hash one. The
   * presented secret (parseApiKey let only ASCII through) is copied into one reused buffer rather than a new
   * Buffer per request: 174 → 128 ns per comparison in isolation, one object less per check (round 8). Buffer.write
   * stays, although callgrind counts ~990 instructions in it: a charCodeAt loop of the same 43 characters, ~250
   * instructions, took 220 ns against 162 in isolation (round 18, bench/HISTORY.md).
   */
  private sameSecret(known: Verified, secret: string): boolean {
    // parseApiKey lets through only secrets of SECRET_CHARS, so both sides always have the scratch's length.
    if (secret.length !== PRESENTED_SECRET.length || known.secret.length !== PRESENTED_SECRET.length) return false;
    PRESENTED_SECRET.write(secret, 0, PRESENTED_SECRET.length, 'latin1');
    return timingSafeEqual(PRESENTED_SECRET, known.secret);
  }

  private forbid(stored: StoredApiKey, scope: Scope, requestId: string): never {
    this.log.info({ request_id: requestId, key_id: stored.id, scope }, 'api key lacks scope');
    throw new AppError('forbidden', `This API key does not have the ${scope} scope.`);
  }

  private reject(requestId: string, why: KeyRejection, keyId?: string): never {
    this.log.info({ request_id: requestId, key_id: keyId, why }, 'api key rejected');
    throw new AppError('unauthorized', UNAUTHORIZED_DETAIL, { headers: { 'www-authenticate': 'ApiKey header="x-api-key"' } });
  }
}
