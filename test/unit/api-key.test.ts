import { describe, expect, it } from 'vitest';
import { checkKey, generateApiKey, hashSecret, parseApiKey, secretMatches, splitKeyShape, type StoredApiKey } from '../../src/auth/api-key.js';
import { Authenticator } from '../../src/auth/authenticate.js';
import type { KeyStore } from '../../src/auth/key-store.js';
import type { AppError } from '../../src/errors.js';
import type { Logger } from '../../src/log.js';

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

  it('splits a string of a key\'s shape without checking its characters (for the verified path only)', () => {
    const { id, secret, plaintext } = generateApiKey();
    expect(splitKeyShape(plaintext)).toEqual({ id, secret });
    expect(splitKeyShape(`cek_ABC!EFGHIJKL_${'~'.repeat(43)}`)).toEqual({ id: 'ABC!EFGHIJKL', secret: '~'.repeat(43) });
    for (const malformed of ['', `${plaintext}x`, plaintext.slice(1), `xek_${id}_${secret}`, `cek_${id}-${secret}`]) {
      expect(splitKeyShape(malformed)).toBeNull();
    }
  });

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

describe('Authenticator on cached records (the per-request path)', () => {
  function harness(record: StoredApiKey) {
    let clock = NOW;
    const reasons: string[] = [];
    const log = { info: (fields: { why?: string; scope?: string }) => reasons.push(fields.why ?? `scope:${fields.scope}`) } as unknown as Logger;
    const probes: string[] = [];
    const store = { peek: () => record, find: async () => record, probe: async (id: string) => { probes.push(id); } } as unknown as KeyStore;
    const auth = new Authenticator(store, log, () => clock);
    return { auth, reasons, probes, at: (ms: number) => { clock = ms; } };
  }
  const outcome = (run: () => unknown): string => {
    try {
      const result = run() as { kind: string };
      return result.kind;
    } catch (error) {
      return (error as AppError).kind;
    }
  };

  it('expires a key verified while valid at its expiry instant, without hashing again, and keeps the verdict order', () => {
    const { id, secret, plaintext } = generateApiKey();
    const record = stored(secret, { id, expires_at: new Date(NOW + 1000).toISOString() });
    const { auth, reasons, at } = harness(record);
    const first = auth.authenticateCached(plaintext, 'eligibility', 'r1');
    expect(first).toEqual({ kind: 'ok', key: record });
    at(NOW + 999);
    // The cached path answers with the same result object: nothing allocated per request.
    expect(auth.authenticateCached(plaintext, 'eligibility', 'r2')).toBe(auth.authenticateCached(plaintext, 'eligibility', 'r3'));
    at(NOW + 1000);
    expect(outcome(() => auth.authenticateCached(plaintext, 'eligibility', 'r4'))).toBe('unauthorized');
    expect(reasons).toEqual(['expired']);
  });

  it('still rejects a wrong secret for a record verified before (after the lookup an unknown id costs too), and a missing scope on both paths', async () => {
    const { id, secret, plaintext } = generateApiKey();
    const { auth, reasons, probes } = harness(stored(secret, { id }));
    expect(outcome(() => auth.authenticateCached(plaintext, 'batch', 'r1'))).toBe('forbidden');
    expect(outcome(() => auth.authenticateCached(plaintext, 'eligibility', 'r2'))).toBe('ok');
    expect(outcome(() => auth.authenticateCached(plaintext, 'batch', 'r3'))).toBe('forbidden');
    const wrong = `cek_${id}_${'A'.repeat(43)}`;
    // A wrong secret is not answered from the cache: authenticate() spends the lookup first.
    expect(auth.authenticateCached(wrong, 'eligibility', 'r4')).toBeUndefined();
    expect(probes).toEqual([]);
    await expect(auth.authenticate(wrong, 'eligibility', 'r4')).rejects.toMatchObject({ kind: 'unauthorized' });
    expect(probes).toEqual([id]);
    expect(outcome(() => auth.authenticateCached(plaintext, 'eligibility', 'r5'))).toBe('ok');
    expect(reasons).toEqual(['scope:batch', 'scope:batch', 'wrong_secret']);
  });

  it('takes a key of the right shape but foreign characters through the full check, even with a verified secret', () => {
    const { id, secret, plaintext } = generateApiKey();
    const { auth, reasons } = harness(stored(secret, { id }));
    expect(outcome(() => auth.authenticateCached(plaintext, 'eligibility', 'r1'))).toBe('ok');
    // The test store finds the record under any id; the verified path still insists on the record's own id.
    const foreignId = `cek_${id.slice(0, -1).toUpperCase()}!_${secret}`;
    expect(outcome(() => auth.authenticateCached(foreignId, 'eligibility', 'r2'))).toBe('unauthorized');
    expect(reasons).toEqual(['malformed']);
  });

  it('never expires a key whose expiry cannot be read, on either path (as checkKey)', () => {
    const { id, secret, plaintext } = generateApiKey();
    const { auth, at } = harness(stored(secret, { id, expires_at: 'not a date' }));
    expect(outcome(() => auth.authenticateCached(plaintext, 'eligibility', 'r1'))).toBe('ok');
    at(NOW + 365 * 86_400_000);
    expect(outcome(() => auth.authenticateCached(plaintext, 'eligibility', 'r2'))).toBe('ok');
  });
});
