// API key format and secret handling. A key is `cek_<id>_<secret>`: the id finds the record, the secret
// (32 random bytes, base64url) is stored only as its SHA-256 and compared in constant time.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const SCOPES = ['eligibility', 'batch', 'monitoring', 'policy', 'review', 'approve'] as const;
export type Scope = (typeof SCOPES)[number];

export interface ApiKeyRecord {
  id: string;
  account: string;
  label: string;
  scopes: Scope[];
  status: 'active' | 'inactive';
  /** RFC 3339, or null for a key that never expires. */
  expires_at: string | null;
  rate_per_minute: number;
  created_at: string;
  /** The one person this key acts as (overrides and approvals), or null: the request body names its actor. */
  actor?: string | null;
}

export interface StoredApiKey extends ApiKeyRecord {
  secret_sha256: string;
}

/** A secret's length: 32 random bytes in base64url, unpadded. */
export const SECRET_CHARS = 43;
const KEY_FORMAT = new RegExp(`^cek_[a-z0-9]{12}_[A-Za-z0-9_-]{${SECRET_CHARS}}$`);
const ID_START = 'cek_'.length;
const ID_END = ID_START + 12;

const KEY_CHARS = ID_END + 1 + SECRET_CHARS;

export function parseApiKey(presented: string): { id: string; secret: string } | null {
  // test() and two slices rather than exec(): no match array per request (every check presents a key).
  return KEY_FORMAT.test(presented) ? splitKeyShape(presented) : null;
}

/**
 * The id and secret of a string laid out as a key (its length, `cek_`, the `_` after the id) without checking
 * their characters. Only for a caller that goes on to find the id among stored records and to compare the secret
 * with one that passed parseApiKey before (Authenticator's verified path): together they prove the characters.
 */
export function splitKeyShape(presented: string): { id: string; secret: string } | null {
  if (presented.length !== KEY_CHARS || !presented.startsWith('cek_') || presented.charCodeAt(ID_END) !== 0x5f) return null;
  return { id: presented.slice(ID_START, ID_END), secret: presented.slice(ID_END + 1) };
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** Constant-time comparison of a presented secret with a stored SHA-256 hex digest. */
export function secretMatches(secret: string, storedSha256Hex: string): boolean {
  const presented = createHash('sha256').update(secret).digest();
  const stored = Buffer.from(storedSha256Hex, 'hex');
  return stored.length === presented.length && timingSafeEqual(presented, stored);
}

const ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

export function generateApiKey(): { id: string; secret: string; plaintext: string } {
  const bytes = randomBytes(12);
  const id = [...bytes].map((byte) => ID_ALPHABET[byte % ID_ALPHABET.length]).join('');
  const secret = randomBytes(32).toString('base64url');
  return { id, secret, plaintext: `cek_${id}_${secret}` };
}

/** A digest no secret is expected to hash to (SHA-256 of nothing a key could hold), for checkKey's unknown path. */
const UNMATCHABLE_SHA256 = createHash('sha256').update('no key has this secret').digest('hex');

export type KeyRejection = 'missing' | 'malformed' | 'unknown' | 'wrong_secret' | 'inactive' | 'expired';

/** Checks a stored key against a presented secret at a point in time; the reason is for logs only. */
export function checkKey(stored: StoredApiKey | null, secret: string, nowMs: number): KeyRejection | null {
  if (!stored) {
    // Hashed all the same, so an unknown id costs what a wrong secret does.
    secretMatches(secret, UNMATCHABLE_SHA256);
    return 'unknown';
  }
  if (!secretMatches(secret, stored.secret_sha256)) return 'wrong_secret';
  if (stored.status !== 'active') return 'inactive';
  if (stored.expires_at !== null && Date.parse(stored.expires_at) <= nowMs) return 'expired';
  return null;
}
