import { describe, expect, it } from 'vitest';
import type { CarrierLookup } from '../../src/core/carrier.js';
import { CarrierCache } from '../../src/verdict/carrier-cache.js';

const notFound: CarrierLookup = { kind: 'not_found' };
const ambiguous: CarrierLookup = { kind: 'ambiguous', mc: '42', dot_numbers: ['1', '2'] };

describe('CarrierCache: the LRU of the snapshot being served', () => {
  it('answers only for the version an entry was read from', () => {
    const cache = new CarrierCache(10);
    cache.set('v1', '42', ambiguous);
    expect(cache.get('v1', '42')).toBe(ambiguous);
    expect(cache.get('v2', '42')).toBeUndefined();
    expect(cache.get('v1', '43')).toBeUndefined();
  });

  it('drops every entry of the older version when one of a new version is cached', () => {
    const cache = new CarrierCache(10);
    cache.set('v1', '42', ambiguous);
    cache.set('v1', '43', notFound);
    cache.set('v2', '44', notFound);
    expect(cache.get('v2', '44')).toBe(notFound);
    expect(cache.get('v1', '42')).toBeUndefined();
    expect(cache.get('v2', '42')).toBeUndefined();
    expect(cache.get('v2', '43')).toBeUndefined();
  });

  it('keeps at most `max` numbers, evicting the least recently used', () => {
    const cache = new CarrierCache(2);
    cache.set('v1', '1', notFound);
    cache.set('v1', '2', notFound);
    expect(cache.get('v1', '1')).toBe(notFound);
    cache.set('v1', '3', notFound);
    expect(cache.get('v1', '2')).toBeUndefined();
    expect(cache.get('v1', '1')).toBe(notFound);
    expect(cache.get('v1', '3')).toBe(notFound);
  });
});
