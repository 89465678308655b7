// Pure pieces of the fail-closed data layer: the one strict date parser, the as-of resolution, the row guards and
// the revocation rules. The end-to-end corpus runs in test/integration/data-trust.test.ts.
import { describe, expect, it } from 'vitest';
import type { SnapshotMeta } from '../../src/core/carrier.js';
import { FUTURE_SKEW_MS, isFutureDay, parseCalendarDate, parseInstant } from '../../src/core/dates.js';
import { revocationStillApplies } from '../../src/ingest/build.js';
import { IngestError } from '../../src/ingest/errors.js';
import { checkCensusCoverage, checkSourceRows } from '../../src/ingest/guards.js';
import { fileNameDate, resolveFileAsOf, type FileRecord } from '../../src/ingest/load-sources.js';
import { mergeRevocations, revocationKind } from '../../src/ingest/sources/revocations.js';

const NOW = Date.parse('2026-11-23T12:00:00Z');

describe('parseCalendarDate (file fields): calendar-valid days in the formats a source names', () => {
  it.each([
    ['02/29/2024', ['mdy'], '2024-02-29'], ['20250429 0000', ['ymd'], '2025-04-29'], ['2026-09-26T00:00:00.000', ['iso'], '2026-09-26'],
    ['', ['mdy'], null],
  ] as const)('%s in %j → %s', (raw, formats, expected) => expect(parseCalendarDate(raw, formats)).toBe(expected));
  it.each([
    ['02/30/2026', ['mdy']], ['02/29/2026', ['mdy']], ['13/01/2026', ['mdy']], ['00/10/2026', ['mdy']], ['04/31/2026', ['mdy']],
    ['20260230', ['ymd']], ['20261301', ['ymd']], ['20260101 2500', ['ymd']], ['2026-02-30', ['iso']], ['2026-01-01T24:00', ['iso']],
    ['18991231', ['ymd']], ['2026-01-01', ['mdy']], ['01/02/2026', ['ymd', 'iso']], ['20260101', ['iso']],
  ] as const)('%s in %j is refused (never rolled over, never another layout)', (raw, formats) => {
    expect(parseCalendarDate(raw, formats)).toBeUndefined();
  });
});

describe('parseInstant (flags, DNU rows, key expiry)', () => {
  it('accepts a day (midnight UTC) or RFC 3339 with a zone, and "now" only where allowed', () => {
    expect(parseInstant('2026-11-20', { nowMs: NOW })).toEqual({ iso: '2026-11-20T00:00:00.000Z', ms: Date.parse('2026-11-20T00:00:00Z') });
    expect(parseInstant('2026-11-20T06:00:00+01:00', { nowMs: NOW })).toMatchObject({ iso: '2026-11-20T05:00:00.000Z' });
    expect(parseInstant('now', { nowMs: NOW, allowNow: true })).toMatchObject({ ms: NOW });
    expect(parseInstant('now', { nowMs: NOW })).toHaveProperty('error');
  });
  it.each([
    ['2026-02-30', 'not a calendar date: "2026-02-30"'], ['2027-02-30', 'not a calendar date: "2027-02-30"'],
    ['2026-13-01', 'not a calendar date: "2026-13-01"'], ['2026-11-20T06:00:00', 'not a date: "2026-11-20T06:00:00" (expected YYYY-MM-DD or an RFC 3339 date-time with a zone)'],
    ['2026-11-20T25:00:00Z', 'not a valid time of day: "2026-11-20T25:00:00Z"'], ['next week', 'not a date: "next week" (expected YYYY-MM-DD or an RFC 3339 date-time with a zone)'],
  ])('%s → %s', (raw, error) => expect(parseInstant(raw, { nowMs: NOW })).toEqual({ error }));
  it('refuses an as-of beyond the clock skew, and an expiry already passed where asked', () => {
    expect(parseInstant(new Date(NOW + FUTURE_SKEW_MS).toISOString(), { nowMs: NOW, notFuture: true })).toHaveProperty('iso');
    expect(parseInstant(new Date(NOW + FUTURE_SKEW_MS + 1000).toISOString(), { nowMs: NOW, notFuture: true })).toHaveProperty('error');
    expect(parseInstant('2099-01-01', { nowMs: NOW, notFuture: true })).toEqual({ error: '"2099-01-01" is in the future (now is 2026-11-23T12:00:00.000Z)' });
    expect(parseInstant('2026-11-01', { nowMs: NOW, notPast: true })).toEqual({ error: '"2026-11-01" is already in the past (now is 2026-11-23T12:00:00.000Z)' });
    expect(isFutureDay('2026-11-23', NOW)).toBe(false);
    expect(isFutureDay('2026-11-24', NOW)).toBe(true);
  });
});

describe('as-of resolution: content, else the file name, else the flag; never mtime', () => {
  const record = (path: string, contentAsOf: string | null): FileRecord => ({
    source: 'ofac_sdn', path, name: path, sha256: '', bytes: 1, rows: 1, contentAsOf,
  });
  const warnings: string[] = [];
  const warn = (m: string) => warnings.push(m);
  it('prefers content dates, and says so when a flag was given too', () => {
    expect(resolveFileAsOf('census', record('census.csv', '2026-11-22'), '2026-11-23T00:00:00.000Z', NOW, warn))
      .toEqual({ as_of: '2026-11-22T00:00:00.000Z', as_of_from: 'content' });
    expect(warnings.at(-1)).toBe('census.csv: carries content dates (newest 2026-11-22); --as-of-source census not used for it');
  });
  it('takes a calendar-valid date in the file name, then the flag; without either refuses with one line', () => {
    expect(resolveFileAsOf('ofac_sdn', record('/d/sdn_2026-11-20.csv', null), undefined, NOW, warn)).toEqual({ as_of: '2026-11-20T00:00:00.000Z', as_of_from: 'file_name' });
    expect(resolveFileAsOf('ofac_sdn', record('/d/sdn.csv', null), '2021-07-01T00:00:00.000Z', NOW, warn)).toEqual({ as_of: '2021-07-01T00:00:00.000Z', as_of_from: 'flag' });
    expect(() => resolveFileAsOf('ofac_sdn', record('/d/sdn.csv', null), undefined, NOW, warn))
      .toThrow('/d/sdn.csv: no as-of date: the file carries none; pass --as-of-source ofac_sdn=YYYY-MM-DD (the date it was published) or put that date in the file name');
    expect(() => resolveFileAsOf('ofac_sdn', record('/d/sdn_20991231.csv', null), undefined, NOW, warn)).toThrow('is in the future');
  });
  it.each([
    ['revocation_2024_08_06.csv', '2024-08-06'], ['sdn_20261121.csv', '2026-11-21'], ['sdn_2026-02-30.csv', null], ['sdn.csv', null],
    ['SAM_Exclusions_Public_V2_Extract_26327.ZIP', null], ['census_az4n-8mr2.csv', null],
  ])('%s → %s', (name, expected) => expect(fileNameDate(`/x/${name}`)).toBe(expected));
});

describe('row guards', () => {
  const meta = (rows: Partial<Record<'census' | 'sam' | 'dnu', number>>): SnapshotMeta => ({
    version: 'v', data_as_of: '', created_at: '', carrier_count: 0,
    sources: Object.fromEntries(Object.entries(rows).map(([name, count]) => [name, { present: true, as_of: null, rows: count }])),
  });
  const now = (rows: number) => ({ present: true, as_of: null, rows, file: 'sam.csv' });
  it('refuses an empty file, a >10% drop and a dropped source, per source; --force accepts', () => {
    expect(() => checkSourceRows({ sam: now(0) }, null, { force: false })).toThrow('sam.csv: sam: the file has no data rows');
    expect(() => checkSourceRows({ sam: now(89) }, meta({ sam: 100 }), { force: false })).toThrow("sam.csv: sam: 89 rows is 11% below the serving snapshot's 100 (limit 10%)");
    expect(() => checkSourceRows({ sam: now(90) }, meta({ sam: 100 }), { force: false })).not.toThrow();
    expect(() => checkSourceRows({}, meta({ sam: 100 }), { force: false })).toThrow('--sam: sam: the serving snapshot has this source (100 rows) and this ingest leaves it out');
    expect(() => checkSourceRows({ sam: now(0) }, meta({ sam: 100 }), { force: true })).not.toThrow();
  });
  it('leaves the do-not-use list free to shrink (a lifted ban), but not an empty file of it', () => {
    expect(() => checkSourceRows({ dnu: { present: true, as_of: null, rows: 1 } }, meta({ dnu: 10 }), { force: false })).not.toThrow();
    expect(() => checkSourceRows({}, null, { force: false, files: [{ source: 'dnu', path: '/d/dnu.csv', rows: 0 }] })).toThrow(IngestError);
  });
  it('accepts an empty do-not-use file without --force when the serving list was empty too (or there was none)', () => {
    const empty = [{ source: 'dnu' as const, path: '/d/dnu.csv', rows: 0 }];
    expect(() => checkSourceRows({ dnu: { present: true, as_of: null, rows: 0 } }, meta({ dnu: 0 }), { force: false, files: empty })).not.toThrow();
    expect(() => checkSourceRows({ dnu: { present: true, as_of: null, rows: 0 } }, meta({ sam: 3 }), { force: false, files: empty, only: ['dnu'] })).not.toThrow();
    expect(() => checkSourceRows({ dnu: { present: true, as_of: null, rows: 0 } }, meta({ dnu: 4 }), { force: false, files: empty }))
      .toThrow('/d/dnu.csv: dnu: the file has no data rows; check the download or re-run with --force');
  });
  it('refuses a census covering less than the authority file beyond 5%', () => {
    expect(() => checkCensusCoverage('c.csv', 1000, 50, { force: false })).not.toThrow();
    expect(() => checkCensusCoverage('c.csv', 1000, 51, { force: false }))
      .toThrow('c.csv: census covers too little of the authority file: 51 of 1000 authority dockets (5%) have no census row (limit 5%)');
    expect(() => checkCensusCoverage('c.csv', 1000, 1000, { force: true })).not.toThrow();
  });
});

describe('revocations fail closed', () => {
  it('skips only explicitly voluntary types', () => {
    expect(revocationKind('VOLUNTARY REVOCATION')).toBe('voluntary');
    expect(revocationKind('Voluntary Suspension')).toBe('voluntary');
    expect(revocationKind('INVOLUNTARY REVOCATION')).toBe('involuntary');
    expect(revocationKind('Involuntary Suspension')).toBe('involuntary');
    expect(revocationKind('')).toBe('unknown');
    expect(revocationKind('Suspension')).toBe('unknown');
  });
  it('a revocation in effect applies until a grant or reinstatement dated after it (never a file date)', () => {
    expect(revocationStillApplies('2026-11-05', '2026-11-06')).toBe(false);
    expect(revocationStillApplies('2026-11-05', '2026-11-05')).toBe(true);
    expect(revocationStillApplies('2026-11-05', '2019-03-01')).toBe(true);
    expect(revocationStillApplies('2026-11-05', null)).toBe(true);
    expect(revocationStillApplies('2026-11-05', undefined)).toBe(true);
  });
  it('side by side, every order in either file counts', () => {
    const merged = mergeRevocations(
      new Map([[1, { pendingOn: '', revokedOn: null }], [2, { pendingOn: null, revokedOn: '2026-10-01' }]]),
      new Map([[1, { pendingOn: '2026-12-01', revokedOn: '2026-11-01' }], [3, { pendingOn: null, revokedOn: '2026-09-01' }]]),
    );
    expect([...merged]).toEqual([
      [1, { pendingOn: '2026-12-01', revokedOn: '2026-11-01' }], [2, { pendingOn: null, revokedOn: '2026-10-01' }],
      [3, { pendingOn: null, revokedOn: '2026-09-01' }],
    ]);
  });
});
