// Pure parts of request hardening: the client address behind trusted proxies, the per-address failure window,
// and the JSON nesting scan that runs before JSON.parse.
import { describe, expect, it } from 'vitest';
import { clientAddress, type RequestOrigin } from '../../src/auth/client-address.js';
import { FailureLimit } from '../../src/auth/failure-limit.js';
import { MAX_JSON_DEPTH, nestsDeeperThan, parseJsonBody } from '../../src/http/json-body.js';
import { z } from 'zod';

const origin = (forwarded?: string): RequestOrigin => ({
  peer: { address: () => '10.1.1.1' }, headers: forwarded === undefined ? {} : { 'x-forwarded-for': forwarded },
});

describe('clientAddress', () => {
  it('is the peer when no proxy is trusted, whatever the header claims', () => {
    expect(clientAddress(origin('1.2.3.4'), 0)).toBe('10.1.1.1');
  });
  it('is the entry as many places from the right as there are trusted proxies; claims further left are ignored', () => {
    expect(clientAddress(origin('6.6.6.6, 1.2.3.4'), 1)).toBe('1.2.3.4');
    expect(clientAddress(origin('6.6.6.6, 1.2.3.4, 10.0.0.7'), 2)).toBe('1.2.3.4');
    expect(clientAddress(origin('1.2.3.4'), 3)).toBe('1.2.3.4');
    expect(clientAddress(origin(), 1)).toBe('10.1.1.1');
    expect(clientAddress(origin(' , '), 1)).toBe('10.1.1.1');
  });
});

describe('FailureLimit', () => {
  it('refuses an address past its limit until its window ends, and counts addresses apart', () => {
    let now = 1_000_000;
    const limit = new FailureLimit(2, () => now);
    limit.note('a');
    expect(limit.retryAfterSeconds('a')).toBe(0);
    limit.note('a');
    expect(limit.retryAfterSeconds('a')).toBe(60);
    expect(limit.retryAfterSeconds('b')).toBe(0);
    now += 59_001;
    expect(limit.retryAfterSeconds('a')).toBe(1);
    now += 1000;
    expect(limit.retryAfterSeconds('a')).toBe(0);
    limit.note('a');
    expect(limit.retryAfterSeconds('a')).toBe(0);
  });
});

describe('JSON nesting', () => {
  it('counts brackets outside strings only, escapes included', () => {
    expect(nestsDeeperThan(Buffer.from('[[[]]]'), 3)).toBe(false);
    expect(nestsDeeperThan(Buffer.from('[[[[]]]]'), 3)).toBe(true);
    expect(nestsDeeperThan(Buffer.from('{"a":{"b":[1]}}'), 3)).toBe(false);
    expect(nestsDeeperThan(Buffer.from('["[[[[", "\\"[[[["]'), 1)).toBe(false);
    expect(nestsDeeperThan(Buffer.from('["\\\\", [[[]]]]'), 3)).toBe(true);
  });
  it('refuses a body past MAX_JSON_DEPTH with invalid_json, and parses one at it', () => {
    const at = `${'['.repeat(MAX_JSON_DEPTH)}${']'.repeat(MAX_JSON_DEPTH)}`;
    expect(() => parseJsonBody(Buffer.from(at), z.unknown())).not.toThrow();
    expect(() => parseJsonBody(Buffer.from(`[${at}]`), z.unknown())).toThrow(expect.objectContaining({ kind: 'invalid_json' }));
  });
});
