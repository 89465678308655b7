import { describe, expect, it } from 'vitest';
import { checkKey, generateApiKey, hashSecret, parseApiKey, secretMatches, type StoredApiKey } from '../../src/auth/api-key.js';

const NOW = Date.parse('2026-11-21T12:00:00Z');

function stored(secret: string, overrides: Partial<StoredApiKey> = {}): StoredApiKey {
  return {
    id: 'abcdefghijkl', account: 'acme', label: '', scopes: ['eligibility'], status: 'active', expires_at: null,
    rate_per_minute: 60, created_at: '2026-01-01T00:00:00Z', secret_sha256: hashSecret(secret), ...overrides,
  };
}

describe('api keys', () => {
  it('generates cek_<id>_<secret> keys that parse back, with ≥ 32 bytes of secret', () => {
    const { id, secret, plaintext } = generateApiKey();
    expect(plaintext).toBe(`cek_${id}_${secret}`);
    expect(parseApiKey(plaintext)).toEqual({ id, secret });
    expect(Buffer.from(secret, 'base64url').length).toBe(32);
    expect(generateApiKey().plaintext).not.toBe(plaintext);
  });

  it.each(['', 'cek_', 'cek_short_x', 'xyz_abcdefghijkl_' + 'a'.repeat(43), `cek_ABCDEFGHIJKL_${'a'.repeat(43)}`, `cek_abcdefghijkl_${'a'.repeat(42)}`])(
    'rejects malformed key %j', (presented) => {
      expect(parseApiKey(presented)).toBeNull();
    },
  );

  it('stores only a SHA-256 of the secret and compares it exactly', () => {
    const { secret } = generateApiKey();
    const hash = hashSecret(secret);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hash).not.toContain(secret);
    expect(secretMatches(secret, hash)).toBe(true);
    expect(secretMatches(`${secret.slice(0, -1)}x`, hash)).toBe(false);
    expect(secretMatches(secret, 'deadbeef')).toBe(false);
  });

  it('tells why a key is rejected (for logs only)', () => {
    const secret = generateApiKey().secret;
    expect(checkKey(null, secret, NOW)).toBe('unknown');
    expect(checkKey(stored(secret), 'wrong', NOW)).toBe('wrong_secret');
    expect(checkKey(stored(secret, { status: 'inactive' }), secret, NOW)).toBe('inactive');
    expect(checkKey(stored(secret, { expires_at: '2026-11-21T11:59:59Z' }), secret, NOW)).toBe('expired');
    expect(checkKey(stored(secret, { expires_at: '2026-11-21T12:00:01Z' }), secret, NOW)).toBeNull();
    expect(checkKey(stored(secret), secret, NOW)).toBeNull();
  });
});
