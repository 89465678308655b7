import { describe, expect, it } from 'vitest';
import { neutralise, notScreened, quote, REPORT_HEADER, reportLine, type RowResult } from '../../src/batch/csv.js';
import { outcomeOf, planRow } from '../../src/batch/outcome.js';
import { batchBudgetLimit, chunkSizeFor, parseRoster, toChunks } from '../../src/batch/roster.js';
import type { Decision } from '../../src/core/decide.js';
import { AppError } from '../../src/errors.js';
import { parseCsv } from '../integration/batch-helpers.js';

const eligible: RowResult = {
  outcome: 'eligible', eligible: true, tier: 'preferred', reasons: [], decision_id: 'd1', ruleset_version: 3,
  data_as_of: '2026-01-01T00:00:00.000Z', evaluated_at: '2026-01-02T00:00:00.000Z', verdict: null,
};

describe('CSV injection neutralisation and RFC 4180 quoting', () => {
  it.each(['=1+2', '+1', '-1', '@SUM(A1)', '\tx', '\rx', '=HYPERLINK("http://evil","click")'])('prefixes %j with an apostrophe', (cell) => {
    expect(neutralise(cell)).toBe(`'${cell}`);
  });

  it.each(['abc', '123', '', ' =x', "'=x", 'a-b'])('leaves %j alone', (cell) => {
    expect(neutralise(cell)).toBe(cell);
  });

  it('quotes cells with quotes, commas, CR or LF and doubles inner quotes', () => {
    expect(quote('plain')).toBe('plain');
    expect(quote('a,b')).toBe('"a,b"');
    expect(quote('say "hi"')).toBe('"say ""hi"""');
    expect(quote('line1\nline2')).toBe('"line1\nline2"');
    expect(quote('a\rb')).toBe('"a\rb"');
  });

  it('builds a line a CSV parser reads back to the neutralised values', async () => {
    const nasty = ['=HYPERLINK("http://x","y")', 'a,b', 'line1\nline2', '\r=cmd'];
    const line = reportLine(7, [nasty[0] ?? null, nasty[1] ?? null, nasty[2] ?? null, nasty[3] ?? null], eligible);
    const { records } = await parseCsv(REPORT_HEADER + line);
    expect(records).toEqual([{
      row: '7', ref: "'\r=cmd", mc: `'${nasty[0]}`, dot: 'a,b', uei: 'line1\nline2', outcome: 'eligible', eligible: 'true',
      tier: 'preferred', reasons: '', decision_id: 'd1', ruleset_version: '3', data_as_of: eligible.data_as_of, evaluated_at: eligible.evaluated_at,
      snapshot_version: '', evidence: '', sources: '',
    }]);
  });

  it('renders an unscreened row with empty decision cells and reasons joined by ;', () => {
    expect(reportLine(1, [null, null, null, 'r'], notScreened('missing_mc_number'))).toBe('1,r,,,,not_screened,false,,missing_mc_number,,,,,,,\r\n');
    expect(reportLine(2, ['5', null, null, null], { ...eligible, outcome: 'review', eligible: false, tier: 'conditional', reasons: ['new_authority', 'mcs150_outdated'] }))
      .toContain(',review,false,conditional,new_authority;mcs150_outdated,');
  });
});

describe('roster validation (DESIGN §3)', () => {
  const problem = (body: unknown): AppError => {
    try {
      parseRoster(body);
    } catch (error) {
      if (error instanceof AppError) return error;
    }
    throw new Error('expected an AppError');
  };

  it('rejects a body that is not an object or has no items array', () => {
    for (const body of [null, [], 'x', 3, {}, { items: 'x' }, { items: {} }]) expect(problem(body).kind).toBe('validation_failed');
  });

  it('rejects empty and oversized rosters with their own codes', () => {
    expect(problem({ items: [] }).kind).toBe('roster_empty');
    expect(problem({ items: Array.from({ length: 5001 }, () => ({ mc: '1' })) }).kind).toBe('roster_too_large');
    expect(parseRoster({ items: Array.from({ length: 5000 }, () => ({ mc: '1' })) })).toHaveLength(5000);
  });

  it('names the invalid rows, at most 20', () => {
    const error = problem({ items: [{ mc: '1' }, { mc: 5 }, 'row', { ref: 'x'.repeat(257) }, { dot: ['1'] }] });
    expect(error.kind).toBe('validation_failed');
    expect(error.errors?.map((entry) => entry.path)).toEqual(['items.1.mc', 'items.2', 'items.3.ref', 'items.4.dot']);
    const many = problem({ items: Array.from({ length: 50 }, () => ({ uei: 1 })) });
    expect(many.errors).toHaveLength(20);
    expect(many.message).toContain('50 row');
  });

  it('keeps the four known fields, ignores unknown ones, accepts null as absent', () => {
    expect(parseRoster({ items: [{ mc: 'MC-1', dot: '2', uei: 'U', ref: 'r', extra: { deep: 1 } }, { mc: null }] }))
      .toEqual([['MC-1', '2', 'U', 'r'], [null, null, null, null]]);
  });
});

describe('row planning and outcomes', () => {
  it('does not screen rows without a usable MC number', () => {
    expect(planRow([null, null, null, null])).toEqual({ kind: 'skip', result: notScreened('missing_mc_number') });
    expect(planRow(['  ', null, null, null])).toEqual({ kind: 'skip', result: notScreened('missing_mc_number') });
    expect(planRow(['MC-12x', null, null, null])).toEqual({ kind: 'skip', result: notScreened('invalid_mc_number') });
    expect(planRow(['MC-000123', null, null, null])).toEqual({ kind: 'screen', mc: '123' });
  });

  it('maps tiers to outcome categories and degraded decisions to error', () => {
    const base: Decision = { eligible: false, found: true, tier: null, reasons: [], degraded: false, ruleset_version: 1, policy_version: null, data_as_of: null, carrier: null,
      evidence: { snapshot_version: null, reasons: [], sources: [] } };
    expect(outcomeOf({ ...base, tier: 'preferred', eligible: true })).toBe('eligible');
    expect(outcomeOf({ ...base, tier: 'standard', eligible: true })).toBe('eligible');
    expect(outcomeOf({ ...base, tier: 'conditional' })).toBe('review');
    expect(outcomeOf({ ...base, tier: 'blocked' })).toBe('hard_stop');
    expect(outcomeOf({ ...base, found: false })).toBe('not_found');
    expect(outcomeOf({ ...base, found: false, degraded: true, reasons: ['data_stale'] })).toBe('error');
  });

  it('sizes chunks by budget and leaves headroom', () => {
    expect(batchBudgetLimit(600, 0.2)).toBe(480);
    expect(batchBudgetLimit(1, 0.5)).toBe(1);
    expect(chunkSizeFor(100_000)).toBe(250);
    expect(chunkSizeFor(48)).toBe(4);
    expect(chunkSizeFor(5)).toBe(1);
    expect(toChunks([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
  });
});
