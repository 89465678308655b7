// The report of a 5000-row job with every outcome kind matches single checks row by row; caller cells that
// could be spreadsheet formulas are neutralised and the CSV parses back to exactly those values.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normaliseMcNumber } from '../../src/core/mc-number.js';
import type { Verdict } from '../../src/core/verdict.js';
import { cleanCarrier, startTestApp, waitFor, type TestApp } from '../helpers/harness.js';
import { report, submit, waitTerminal } from './batch-helpers.js';

let t: TestApp;
let key: string;

beforeAll(async () => {
  t = await startTestApp();
  await t.publishRules();
  const version = await t.writeSnapshot([
    cleanCarrier('200001'),
    cleanCarrier('200002', { insurance: { bipd_on_file_usd: 800_000, bipd_required_usd: 750_000, cancellation_effective_on: null } }),
    cleanCarrier('200003', { safety_rating: 'C' }),
    cleanCarrier('200004', { authority: { status: 'inactive', granted_on: '2015-03-01', revocation_pending_on: null, revoked_on: null } }),
    cleanCarrier('200005', { oos_order: { since: '2024-01-01', reason: 'imminent hazard' }, mcs150_date: '2019-01-01' }),
  ], {}, { 200006: ['3000001', '3000002'] });
  // Single checks read the replica's polled state: wait until it serves this snapshot.
  await waitFor(() => Promise.resolve(t.app.parts.state.snapshot?.version), (served) => served === version, 5000);
  ({ key } = await t.createKey());
});

afterAll(async () => {
  await t.stop();
});

const OUTCOME_BY_TIER: Record<string, string> = { preferred: 'eligible', standard: 'eligible', conditional: 'review', blocked: 'hard_stop' };

describe('batch report', () => {
  it('screens 5000 rows with every outcome kind exactly like single checks, in input order', async () => {
    const mcInputs = ['200001', 'MC-200002', 'mc#200003', ' MC 200004 ', '0200005', '200006', '999999', '', 'MC-12x', '123456789', undefined];
    const items = Array.from({ length: 5000 }, (_, index) => {
      const mc = mcInputs[index % mcInputs.length];
      return { ...(mc === undefined ? {} : { mc }), ref: `ref-${index + 1}`, dot: String(index), uei: index % 7 === 0 ? 'UEI123' : undefined };
    });
    const job = await submit(t, key, items);
    const done = await waitTerminal(t, key, job.job_id, 30_000);
    expect(done.status).toBe('completed');
    expect(done.processed).toBe(5000);
    expect(Object.values(done.summary).reduce((a, b) => a + b, 0)).toBe(5000);
    for (const outcome of ['eligible', 'review', 'hard_stop', 'not_found', 'not_screened']) expect(done.summary[outcome]).toBeGreaterThan(0);
    expect(done.summary.error).toBe(0);

    const expected = new Map<string, Verdict>();
    for (const raw of mcInputs) {
      const mc = raw === undefined ? null : normaliseMcNumber(raw);
      if (mc === null || expected.has(mc)) continue;
      const response = await t.post('/v1/eligibility', { mc_number: mc }, { 'x-api-key': key });
      expected.set(mc, await response.json() as Verdict);
    }

    const { header, records, response } = await report(t, key, job.job_id);
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(response.headers.get('content-disposition')).toBe(`attachment; filename="batch-${job.job_id}.csv"`);
    expect(header).toEqual([
      'row', 'ref', 'mc', 'dot', 'uei', 'outcome', 'eligible', 'tier', 'reasons', 'decision_id', 'ruleset_version', 'data_as_of', 'evaluated_at',
      'snapshot_version', 'evidence', 'sources',
    ]);
    expect(records).toHaveLength(5000);
    const counts: Record<string, number> = {};
    records.forEach((record, index) => {
      const input = items[index];
      expect(record.row).toBe(String(index + 1));
      expect([record.ref, record.mc, record.dot, record.uei]).toEqual([input?.ref, input?.mc ?? '', input?.dot, input?.uei ?? '']);
      counts[record.outcome as string] = (counts[record.outcome as string] ?? 0) + 1;
      const mc = input?.mc === undefined ? null : input.mc.trim() === '' ? '' : normaliseMcNumber(input.mc);
      if (mc === null || mc === '') {
        expect(record).toMatchObject({ outcome: 'not_screened', eligible: 'false', tier: '', reasons: mc === '' || input?.mc === undefined ? 'missing_mc_number' : 'invalid_mc_number', decision_id: '' });
        return;
      }
      const verdict = expected.get(mc);
      if (!verdict) throw new Error(`no single check for ${mc}`);
      expect(record).toMatchObject({
        outcome: verdict.tier ? OUTCOME_BY_TIER[verdict.tier] : 'not_found',
        eligible: String(verdict.eligible), tier: verdict.tier ?? '', reasons: verdict.reasons.join(';'),
        ruleset_version: String(verdict.ruleset_version), data_as_of: verdict.data_as_of,
      });
      expect(record.decision_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);
      expect(record.evaluated_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    });
    expect(counts).toEqual(Object.fromEntries(Object.entries(done.summary).filter(([, count]) => count > 0)));
    // Every verdict kind was really exercised, including the ambiguous MC and a multi-reason hard stop.
    expect(expected.get('200006')?.reasons).toEqual(['ambiguous_mc_number']);
    expect(expected.get('200005')?.reasons).toEqual(['out_of_service_order', 'mcs150_outdated']);
    expect(expected.get('200002')?.tier).toBe('standard');
  });

  it('neutralises formula cells and survives quotes, commas, CR and LF', async () => {
    const nasty = ['=HYPERLINK("http://evil.example","click")', '+SUM(1)', '-1+2', '@cmd', '\tTAB', '\rCR', 'say "hi"', 'a,b', 'line1\nline2', 'safe', "'already"];
    const items = nasty.map((cell, index) => ({ ref: cell, dot: cell, uei: cell, mc: index === 0 ? '=1' : index % 2 === 0 ? '200001' : cell }));
    const job = await submit(t, key, items);
    await waitTerminal(t, key, job.job_id);
    const { records } = await report(t, key, job.job_id);
    expect(records).toHaveLength(nasty.length);
    records.forEach((record, index) => {
      const input = items[index];
      if (!input) throw new Error('row missing');
      const neutral = (cell: string) => (/^[=+\-@\t\r]/.test(cell) ? `'${cell}` : cell);
      expect([record.ref, record.mc, record.dot, record.uei]).toEqual([neutral(input.ref), neutral(input.mc), neutral(input.dot), neutral(input.uei)]);
      for (const cell of [record.ref, record.mc, record.dot, record.uei]) expect(cell).not.toMatch(/^[=+\-@\t\r]/);
    });
    expect(records[2]?.outcome).toBe('eligible');
  });
});
