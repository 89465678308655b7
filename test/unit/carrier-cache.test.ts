import { describe, expect, it } from 'vitest';
import type { CarrierLookup } from '../../src/core/carrier.js';
import { NOT_FOUND } from '../../src/store/carrier-codec.js';
import { CarrierCache } from '../../src/eligibility/carrier-cache.js';

/** The lookup decodeCarrier gives every number a snapshot lacks. */
const notFound: CarrierLookup = NOT_FOUND;
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

  it('keeps at most `max` carriers, evicting the least recently used', () => {
    const cache = new CarrierCache(2);
    const [one, two, three] = ['1', '2', '3'].map((mc): CarrierLookup => ({ kind: 'ambiguous', mc, dot_numbers: ['7', '8'] }));
    cache.set('v1', '1', one as CarrierLookup);
    cache.set('v1', '2', two as CarrierLookup);
    expect(cache.get('v1', '1')).toBe(one);
    cache.set('v1', '3', three as CarrierLookup);
    expect(cache.get('v1', '2')).toBeUndefined();
    expect(cache.get('v1', '1')).toBe(one);
    expect(cache.get('v1', '3')).toBe(three);
  });
});

describe('CarrierCache: numbers the snapshot does not hold', () => {
  it('remembers thousands of unknown numbers without evicting a single carrier from a small LRU', () => {
    const cache = new CarrierCache(2);
    cache.set('v1', '42', ambiguous);
    const unknown = Array.from({ length: 5_000 }, (_, index) => String(1_000_000 + index * 7));
    for (const mc of unknown) cache.set('v1', mc, notFound);
    expect(cache.get('v1', '42')).toBe(ambiguous);
    // Direct-mapped: a few may share a slot with a later one and be forgotten (one Redis read again); most stay.
    const remembered = unknown.filter((mc) => cache.get('v1', mc) === notFound);
    expect(remembered.length).toBeGreaterThan(4_800);
    expect(cache.get('v1', '1000001')).toBeUndefined();
  });

  it('gives back the shared not-found lookup, so a remembered number gets the same verdict template', () => {
    const cache = new CarrierCache(10);
    cache.set('v1', '777', notFound);
    expect(cache.get('v1', '777')).toBe(notFound);
  });

  it('forgets a number whose slot a later unknown number takes', () => {
    const cache = new CarrierCache(10);
    cache.set('v1', '5', notFound);
    // Find another number of the same slot by trying: the table has 65,536 slots.
    let rival = 6;
    for (; rival < 50_000_000; rival += 1) {
      cache.set('v2', '5', notFound);
      cache.set('v2', String(rival), notFound);
      if (cache.get('v2', '5') === undefined) break;
    }
    expect(cache.get('v2', '5')).toBeUndefined();
    expect(cache.get('v2', String(rival))).toBe(notFound);
  });

  it('keeps numbers that are not canonical (leading zero, letters, too long) in the LRU, evicted as before', () => {
    const cache = new CarrierCache(2);
    for (const mc of ['0123', 'MC-9', '123456789']) cache.set('v1', mc, notFound);
    expect(cache.get('v1', '0123')).toBeUndefined();
    expect(cache.get('v1', 'MC-9')).toBe(notFound);
    expect(cache.get('v1', '123456789')).toBe(notFound);
    expect(cache.get('v1', '123')).toBeUndefined();
  });

  it('forgets every unknown number when the snapshot version changes', () => {
    const cache = new CarrierCache(10);
    cache.set('v1', '555', notFound);
    cache.set('v2', '42', ambiguous);
    expect(cache.get('v2', '555')).toBeUndefined();
    expect(cache.get('v1', '555')).toBeUndefined();
  });

  it('keeps a second, different not-found object in the LRU rather than answer with the first one', () => {
    const cache = new CarrierCache(10);
    const other: CarrierLookup = { kind: 'not_found' };
    cache.set('v1', '11', notFound);
    cache.set('v1', '12', other);
    expect(cache.get('v1', '11')).toBe(notFound);
    expect(cache.get('v1', '12')).toBe(other);
  });
});

describe('CarrierCache: what a snapshot switch carries over (src/eligibility/cache-carry-over.ts)', () => {
  const lookup = (mc: string): CarrierLookup => ({ kind: 'ambiguous', mc, dot_numbers: [mc] });
  /** recent(), its listing taken whole. */
  const listed = (cache: CarrierCache) => {
    const { version, mcs } = cache.recent();
    return { version, mcs: [...mcs] };
  };

  it('lists the LRU most recently used first, with the version it holds; no remembered unknown numbers', () => {
    const cache = new CarrierCache(10);
    for (const mc of ['1', '2', '3']) cache.set('v1', mc, lookup(mc));
    cache.set('v1', '777', notFound);
    cache.get('v1', '1');
    expect(listed(cache)).toEqual({ version: 'v1', mcs: ['1', '3', '2'] });
    expect(listed(new CarrierCache(10))).toEqual({ version: null, mcs: [] });
  });

  it('adopts a cache of the new version filled off to the side, in place of everything it held', () => {
    const cache = new CarrierCache(2);
    cache.set('v1', '5', lookup('5'));
    cache.set('v1', '777', notFound);
    const prepared = cache.prepare('v2');
    const fresh1 = lookup('1');
    prepared.set('2', lookup('2'));
    prepared.set('1', fresh1);
    prepared.set('888', notFound);
    // Filling it changes nothing the cache answers until it is adopted.
    expect(cache.get('v1', '5')).toEqual(lookup('5'));
    expect(cache.get('v2', '1')).toBeUndefined();
    cache.adopt(prepared);
    expect(cache.get('v2', '1')).toBe(fresh1);
    expect(cache.get('v2', '888')).toBe(notFound);
    expect(cache.get('v2', '5')).toBeUndefined();
    expect(cache.get('v2', '777')).toBeUndefined();
    expect(cache.get('v1', '1')).toBeUndefined();
    // '1' was filled last, so it is the most recently used: a new entry evicts '2' first (max 2).
    cache.set('v2', '3', lookup('3'));
    expect(listed(cache)).toEqual({ version: 'v2', mcs: ['3', '1'] });
  });
});
