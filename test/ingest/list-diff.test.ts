// The watch-list diff (src/ingest/list-diff.ts): pure, no Redis.
import { describe, expect, it } from 'vitest';
import { decodeListEntries, diffList, encodeListEntries, ListEntries, removedFor } from '../../src/ingest/list-diff.js';

function list(entries: Array<[string, string]>): ListEntries {
  const out = new ListEntries();
  for (const [id, name] of entries) out.add(id, name);
  return out;
}

const serving = list(Array.from({ length: 200 }, (_, i): [string, string] => [String(1000 + i), `ENTRY ${i}`]));

describe('watch-list diff', () => {
  it('round-trips through its compressed blob, names with tabs flattened, name-keyed entries kept', () => {
    const entries = list([['306', 'BANCO NACIONAL DE CUBA'], ['', 'NO\tID FIRM'], ['307', 'SECOND']]);
    const back = decodeListEntries(encodeListEntries(entries));
    expect([...back.entries]).toEqual([['306', 'BANCO NACIONAL DE CUBA'], ['name:NO ID FIRM', 'NO ID FIRM'], ['307', 'SECOND']]);
    expect(decodeListEntries(encodeListEntries(new ListEntries())).entries.size).toBe(0);
  });

  it('names every removed entry in serving order; within the share it is ok', () => {
    const now = list([...serving.entries].filter(([id]) => id !== '1005' && id !== '1100'));
    const { removed, row } = diffList('ofac_sdn', serving, now, 0.01, 'sdn.csv');
    expect(removed).toEqual([
      { list: 'ofac_sdn', file: 'sdn.csv', id: '1005', name: 'ENTRY 5' }, { list: 'ofac_sdn', file: 'sdn.csv', id: '1100', name: 'ENTRY 100' },
    ]);
    expect(row).toEqual({
      guard: 'removed:ofac_sdn', before: '200 entries', after: '2 removed (1.0%), first ofac_sdn 1005 "ENTRY 5"',
      limit: '≤ 1.0% removed', verdict: 'ok', file: 'sdn.csv',
    });
  });

  it('refuses past the share; added entries and an identical list remove nothing', () => {
    const now = list([...serving.entries].slice(3));
    expect(diffList('ofac_sdn', serving, now, 0.01, 'sdn.csv').row.verdict).toBe('refused');
    const grown = list([...serving.entries, ['9999', 'NEW']]);
    expect(diffList('ofac_sdn', serving, grown, 0, 'sdn.csv')).toMatchObject({ removed: [], row: { verdict: 'ok', after: '0 removed (0.0%)' } });
  });

  it('a first ingest names nothing', () => {
    expect(diffList('sam', null, serving, 0.01, 'sam.csv')).toMatchObject({ removed: [], row: { before: '-', verdict: 'ok' } });
  });

  it('a SAM record still in the file but terminated is named as such', () => {
    const before = list([['S4M1', 'REDLINE'], ['S4M2', 'SUNRISE']]);
    const now = list([['S4M1', 'REDLINE']]);
    now.end('S4M2', 'SUNRISE', '2026-10-24');
    expect(diffList('sam', before, now, 1, 'sam.csv').removed).toEqual([{ list: 'sam', file: 'sam.csv', id: 'S4M2', name: 'SUNRISE', terminated: '2026-10-24' }]);
  });

  it('links a serving hit to its removed entry by id, else by name', () => {
    const removed = [{ list: 'ofac_sdn' as const, file: 'f', id: '990001', name: 'NORTHWIND' }, { list: 'sam' as const, file: 's', id: '', name: 'ACME' }];
    expect(removedFor(removed, { list: 'ofac_sdn', entry_id: '990001', matched_name: 'ALIAS' })?.id).toBe('990001');
    expect(removedFor(removed, { list: 'sam', entry_id: 'row7', matched_name: 'ACME' })?.name).toBe('ACME');
    expect(removedFor(removed, { list: 'ofac_cons', entry_id: '990001', matched_name: 'NORTHWIND' })).toBeUndefined();
  });
});
