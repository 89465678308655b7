// Decision records over HTTP: every verdict carries evidence, is recorded before it is answered, and can be
// read back by id by any key of the same account, exactly as given; another account's id is the same 404 as an
// unknown one. Batch rows are records too, and the report carries the evidence columns.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RULE_SET } from '../../src/core/ruleset.js';
import { canonicalJson } from '../../src/decisions/reader.js';
import { cleanCarrier, startTestApp, waitFor, type TestApp } from '../helpers/harness.js';
import { parseCsv } from './batch-helpers.js';

let t: TestApp;
let key: string;
let keyId: string;
let sameAccount: string;
let otherAccount: string;
let batchOnly: string;
let snapshotVersion: string;
const SHA = 'b'.repeat(64);

beforeAll(async () => {
  t = await startTestApp();
  await t.publishRules();
  const now = new Date().toISOString();
  snapshotVersion = await t.writeSnapshot([
    cleanCarrier('100001'),
    cleanCarrier('100002', { safety_rating: 'C', oos_order: { since: '2026-10-01', reason: 'Imminent hazard' } }),
  ], {
    sources: {
      census: { present: true, as_of: now, rows: 2, file: 'census.csv', files: [{ name: 'census.csv', sha256: SHA, bytes: 10, rows: 2 }] } as never,
      authority: { present: true, as_of: now, rows: 2 }, insurance: { present: true, as_of: now, rows: 2 },
      oos: { present: true, as_of: now, rows: 1 }, ofac_sdn: { present: true, as_of: now, rows: 1 }, sam: { present: true, as_of: now, rows: 1 },
    },
  });
  ({ key, id: keyId } = await t.createKey({ account: 'acme' }));
  ({ key: sameAccount } = await t.createKey({ account: 'acme', scopes: ['eligibility'] }));
  ({ key: batchOnly } = await t.createKey({ account: 'acme', scopes: ['batch'] }));
  ({ key: otherAccount } = await t.createKey({ account: 'globex' }));
  await t.app.parts.state.poll();
});

afterAll(async () => {
  await t.stop();
});

async function check(body: unknown, headers: Record<string, string> = {}) {
  const response = await t.post('/v1/eligibility', body, { 'x-api-key': key, ...headers });
  return { response, verdict: await response.json() };
}

describe('single-check records', () => {
  it('answers a verdict with evidence (appended last) and reads it back exactly, with who asked and the reference', async () => {
    const { response, verdict } = await check({ mc_number: 'MC-100002', reference: 'load-42' }, { 'x-request-id': 'req-abc-1' });
    expect(response.status).toBe(200);
    expect(Object.keys(verdict)).toEqual([
      'eligible', 'found', 'tier', 'reasons', 'degraded', 'decision_id', 'ruleset_version', 'policy_version', 'data_as_of', 'evaluated_at',
      'cache_hit', 'mc_number', 'carrier', 'evidence',
    ]);
    expect(verdict.reasons).toEqual(['out_of_service_order', 'conditional_safety_rating']);
    expect(verdict.evidence.reasons).toEqual([
      { reason: 'out_of_service_order', source: 'oos', record_id: '1100002', facts: { order_date: '2026-10-01', order_reason: 'Imminent hazard' }, rule: { regulation: '49 CFR 385.13, 49 CFR 386.72' } },
      { reason: 'conditional_safety_rating', source: 'census', record_id: '1100002', facts: { safety_rating: 'C' }, rule: { conditional: 'review', regulation: '49 CFR 385.3' } },
    ]);
    expect(verdict.evidence.sources.find((source: { source: string }) => source.source === 'census').files[0].sha256).toBe(SHA);

    const read = await t.get(`/v1/decisions/${verdict.decision_id}`, { 'x-api-key': sameAccount });
    expect(read.status).toBe(200);
    const record = await read.json();
    expect(record.verdict).toEqual(verdict);
    expect(JSON.stringify(record.verdict)).toBe(JSON.stringify(verdict));
    expect(record).toMatchObject({
      decision_id: verdict.decision_id, kind: 'check', key_id: keyId, account: 'acme', request_id: 'req-abc-1', reference: 'load-42', batch: null,
    });
    expect(record.ruleset).toEqual({
      version: verdict.ruleset_version, published_at: expect.any(String),
      sha256: createHash('sha256').update(canonicalJson(DEFAULT_RULE_SET)).digest('hex'),
    });
    expect(record.snapshot).toMatchObject({ version: snapshotVersion, sources: { census: { files: [{ sha256: SHA }] } } });
  });

  it('an eligible verdict shows the sources it was screened against; cache-hot and cold checks are both recorded', async () => {
    const first = (await check({ mc_number: '100001' })).verdict;
    const second = (await check({ mc_number: '100001' })).verdict;
    expect(second.cache_hit).toBe(true);
    for (const verdict of [first, second]) {
      expect(verdict.eligible).toBe(true);
      expect(verdict.evidence.reasons).toEqual([]);
      expect(verdict.evidence.sources.map((source: { source: string }) => source.source)).toEqual(['authority', 'census', 'insurance', 'ofac_sdn', 'oos', 'sam']);
      const record = await (await t.get(`/v1/decisions/${verdict.decision_id}`, { 'x-api-key': key })).json();
      expect(record.verdict).toEqual(verdict);
      expect(record.reference).toBeNull();
    }
  });

  it('concurrent cache-hot checks of one carrier each answer their own verdict, byte for byte their record', async () => {
    // A cache-hot verdict is sent from its template's own buffer with the id and time written in place
    // (VerdictBytes.ownBytes): checks answered in one turn must still each get their own bytes.
    await check({ mc_number: '100001' });
    const answers = await Promise.all(Array.from({ length: 40 }, async (_, index) => {
      const response = await t.post('/v1/eligibility', { mc_number: '100001' }, { 'x-api-key': key, 'x-request-id': `hot-${index}` });
      return { text: await response.text(), requestId: response.headers.get('x-request-id') };
    }));
    const ids = new Set<string>();
    for (const { text, requestId } of answers) {
      const verdict = JSON.parse(text) as { decision_id: string; cache_hit: boolean };
      expect(verdict.cache_hit).toBe(true);
      ids.add(verdict.decision_id);
      const record = await (await t.get(`/v1/decisions/${verdict.decision_id}`, { 'x-api-key': key })).json();
      expect(JSON.stringify(record.verdict)).toBe(text);
      expect(record.request_id).toBe(requestId);
    }
    expect(ids.size).toBe(40);
  });

  it('records not-found verdicts with their evidence inline', async () => {
    const { verdict } = await check({ mc_number: '999999' });
    const record = await (await t.get(`/v1/decisions/${verdict.decision_id}`, { 'x-api-key': key })).json();
    expect(record.verdict).toEqual(verdict);
    expect(verdict.evidence.reasons[0]).toMatchObject({ reason: 'carrier_not_found', source: 'snapshot', record_id: snapshotVersion });
  });

  it('another account gets the same 404 as an unknown or malformed id', async () => {
    const { verdict } = await check({ mc_number: '100001' });
    const foreign = await t.get(`/v1/decisions/${verdict.decision_id}`, { 'x-api-key': otherAccount });
    const unknownId = `${verdict.decision_id.slice(0, 30)}${verdict.decision_id.slice(30) === '000000' ? '000001' : '000000'}`;
    const unknown = await t.get(`/v1/decisions/${unknownId}`, { 'x-api-key': otherAccount });
    const malformed = await t.get('/v1/decisions/not-an-id', { 'x-api-key': otherAccount });
    expect([foreign.status, unknown.status, malformed.status]).toEqual([404, 404, 404]);
    const strip = async (response: Response) => {
      const { instance: _instance, ...body } = await response.json();
      return body;
    };
    const foreignBody = await strip(foreign);
    expect(foreignBody).toEqual(await strip(unknown));
    expect(foreignBody).toEqual(await strip(malformed));
    expect(foreignBody.code).toBe('not_found');
  });

  it('a batch-only key of the account may read records; no key is 401', async () => {
    const { verdict } = await check({ mc_number: '100001' });
    expect((await t.get(`/v1/decisions/${verdict.decision_id}`, { 'x-api-key': batchOnly })).status).toBe(200);
    expect((await t.get(`/v1/decisions/${verdict.decision_id}`)).status).toBe(401);
  });

  it('rejects a reference longer than 128 characters or not a string (422), accepts 128', async () => {
    for (const reference of ['x'.repeat(129), 42, null, { id: 1 }]) {
      const response = await t.post('/v1/eligibility', { mc_number: '100001', reference }, { 'x-api-key': key });
      expect(response.status, JSON.stringify(reference)).toBe(422);
      expect((await response.json()).errors[0].path).toBe('reference');
    }
    const { response, verdict } = await check({ mc_number: '100001', reference: 'r'.repeat(128) });
    expect(response.status).toBe(200);
    const record = await (await t.get(`/v1/decisions/${verdict.decision_id}`, { 'x-api-key': key })).json();
    expect(record.reference).toBe('r'.repeat(128));
  });

});

describe('batch rows are records', () => {
  it('each screened row has a retrievable record with its ref; the report appends evidence columns', async () => {
    const submit = await t.post('/v1/batch', { items: [{ mc: '100002', ref: 'load-1' }, { mc: '100001', ref: 'load-2' }, { ref: 'no mc' }] }, { 'x-api-key': key });
    expect(submit.status).toBe(202);
    const { job_id: jobId } = await submit.json();
    await waitFor(async () => (await (await t.get(`/v1/batch/${jobId}`, { 'x-api-key': key })).json()).status, (status) => status === 'completed', 10_000);
    const csv = await (await t.get(`/v1/batch/${jobId}/report`, { 'x-api-key': key })).text();
    const { records } = await parseCsv(csv);
    expect(Object.keys(records[0] ?? {}).slice(-4)).toEqual(['evaluated_at', 'snapshot_version', 'evidence', 'sources']);
    const [blocked, eligible, skipped] = records;
    expect(JSON.parse(blocked?.evidence ?? '')[0]).toMatchObject({ reason: 'out_of_service_order', facts: { order_date: '2026-10-01' } });
    expect(blocked?.sources).toContain(`census `);
    expect(blocked?.sources).toContain(SHA);
    expect(eligible?.evidence).toBe('');
    expect(skipped?.decision_id).toBe('');
    for (const [row, line] of [[1, blocked], [2, eligible]] as const) {
      const read = await t.get(`/v1/decisions/${line?.decision_id}`, { 'x-api-key': sameAccount });
      expect(read.status).toBe(200);
      const record = await read.json();
      expect(record).toMatchObject({ kind: 'batch_row', key_id: keyId, reference: `load-${row}`, batch: { job_id: jobId, row }, request_id: null });
      expect(record.verdict.reasons.join(';')).toBe(line?.reasons);
      expect(record.verdict.evaluated_at).toBe(line?.evaluated_at);
      expect(record.verdict.snapshot_version ?? record.verdict.evidence.snapshot_version).toBe(line?.snapshot_version);
    }
    expect((await t.get(`/v1/decisions/${blocked?.decision_id}`, { 'x-api-key': otherAccount })).status).toBe(404);
  });
});

describe('kept manifests', () => {
  it('keeps the snapshot manifest after the snapshot itself is deleted', async () => {
    const { verdict } = await check({ mc_number: '100001' });
    await t.redis.del(t.keys.snapshotMeta(snapshotVersion));
    const record = await (await t.get(`/v1/decisions/${verdict.decision_id}`, { 'x-api-key': key })).json();
    expect(record.snapshot.version).toBe(snapshotVersion);
    expect(record.verdict).toEqual(verdict);
  });
});
