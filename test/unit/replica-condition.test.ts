import { describe, expect, it } from 'vitest';
import type { SnapshotMeta } from '../../src/core/carrier.js';
import { DEFAULT_RULE_SET } from '../../src/core/ruleset.js';
import { replicaProblems } from '../../src/state/condition.js';
import { DoNotUseList } from '../../src/state/do-not-use.js';

const NOW = Date.parse('2026-11-21T12:00:00Z');
const ruleset = { version: 3, published_at: '2026-11-01T00:00:00Z', rules: DEFAULT_RULE_SET };
const fresh = '2026-11-21T06:00:00.000Z';

function snapshot(sources: SnapshotMeta['sources'], asOf = fresh): SnapshotMeta {
  return { version: 'v1', data_as_of: asOf, created_at: asOf, carrier_count: 10, sources };
}

const allRequired = Object.fromEntries(DEFAULT_RULE_SET.sources.required.map((name) => [name, { present: true, as_of: fresh, rows: 1 }])) as SnapshotMeta['sources'];

describe('replicaProblems', () => {
  const base = { maxDataAgeSeconds: 172_800, nowMs: NOW };

  it('is empty when verdicts are given', () => {
    expect(replicaProblems({ ...base, backend: 'up', ruleset, snapshot: snapshot(allRequired) })).toEqual([]);
  });

  it('names an unreachable Redis alone, and lost data before what is missing', () => {
    expect(replicaProblems({ ...base, backend: 'unreachable', ruleset: null, snapshot: null })).toEqual(['redis_unreachable']);
    expect(replicaProblems({ ...base, backend: 'data_missing', ruleset: null, snapshot: null })).toEqual(['redis_data_missing', 'no_ruleset', 'no_snapshot']);
  });

  it('names a stale snapshot, missing required sources and stale sources', () => {
    const sources = { ...allRequired, census: { present: true, as_of: '2026-01-01T00:00:00Z', rows: 1 } };
    delete (sources as Record<string, unknown>).authority;
    const found = replicaProblems({ ...base, backend: 'up', ruleset, snapshot: snapshot(sources, '2026-11-01T00:00:00Z') });
    expect(found).toEqual(expect.arrayContaining(['snapshot_stale', 'source_missing:authority', 'source_stale:census']));
  });
});

describe('DoNotUseList', () => {
  it('applies changes in place and keeps failing closed on unreadable values', () => {
    const list = DoNotUseList.from({ '1': JSON.stringify({ expires_at: null }) });
    list.set('2', 'not json');
    list.set('3', JSON.stringify({ expires_at: '2026-01-01T00:00:00Z' }));
    list.delete('1');
    expect([list.has('1', NOW), list.has('2', NOW), list.has('3', NOW), list.size]).toEqual([false, true, false, 2]);
  });
});
