// Overrides, clearances and the review queue end to end on the real service (real HTTP port, real Redis, own
// prefix): four-eyes, not_overridable, the effect on single checks and batch rows, invalidation by new data,
// expiry to the second on an injected clock, reference scopes, account isolation, a second replica, decision
// records and monitoring events.
import { DEFAULT_RULE_SET } from '../../src/core/ruleset.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REASON_CODES, REASONS } from '../../src/core/reasons.js';
import type { CarrierRecord, WatchlistHit } from '../../src/core/carrier.js';
import { cleanCarrier, startTestApp, waitFor, type TestApp } from '../helpers/harness.js';
import { report, submit, waitTerminal } from './batch-helpers.js';
import { PolicyStore, policyKeys } from '../../src/policy/index.js';
import { monitoringKeys, shardOf } from '../../src/monitoring/keys.js';

/** The service's clock: real time, or held at an instant while a test looks at one millisecond. */
let heldAt: number | null = null;
const clock = () => heldAt ?? Date.now();
let t: TestApp;
const keys: Record<string, string> = {};

const json = (response: Response) => response.json() as Promise<Record<string, any>>;
const as = (key: string) => ({ 'x-api-key': key });
const send = (method: string, path: string, key: string, body?: unknown) => fetch(`${t.baseUrl}${path}`, {
  method, headers: { ...as(key), 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
});

const sdnHit = (matched: string, programs = ['SDGT']): WatchlistHit => ({
  list: 'ofac_sdn', entry_id: '7001', matched_name: matched, carrier_name: 'NORTHWIND HAULING LLC', score: 0.93, exact: false,
  entity_type: 'entity', programs,
});
const recentGrant = new Date(Date.now() - 20 * 86_400_000).toISOString().slice(0, 10);
function carriers(changes: { bipd?: number; sdnName?: string; legalName?: string } = {}): CarrierRecord[] {
  return [
    cleanCarrier('300001', { insurance: { bipd_on_file_usd: changes.bipd ?? 900_000, bipd_required_usd: 750_000, cancellation_effective_on: null } }),
    cleanCarrier('300002', { legal_name: changes.legalName ?? 'NORTHWIND HAULING LLC', hits: [sdnHit(changes.sdnName ?? 'NORTHWINDE HOLDINGS')] }),
    cleanCarrier('300003', { authority: { status: 'active', granted_on: recentGrant, revocation_pending_on: null, revoked_on: null } }),
    cleanCarrier('300004', { oos_order: { since: '2026-01-01', reason: 'imminent hazard' }, authority: { status: 'active', granted_on: recentGrant, revocation_pending_on: null, revoked_on: null } }),
    cleanCarrier('300005', { mcs150_date: '2019-01-01' }),
    cleanCarrier('300006'),
  ];
}

async function serve(list: CarrierRecord[]): Promise<void> {
  const version = await t.writeSnapshot(list);
  await waitFor(async () => t.app.parts.state.snapshot?.version, (served) => served === version, 5000);
}

async function check(key: string, mc: string, reference?: string): Promise<Record<string, any>> {
  const response = await t.post('/v1/eligibility', { mc_number: mc, ...(reference ? { reference } : {}) }, as(key));
  expect(response.status).toBe(200);
  return json(response);
}

async function request(key: string, body: Record<string, unknown>): Promise<Response> {
  return send('POST', '/v1/overrides', key, { reason_code: 'verified_with_insurer', scope: { until_change: true }, ...body });
}

/** Requests (as ann) and approves (as bob) an override or clearance; its id. */
async function granted(body: Record<string, unknown>): Promise<string> {
  const created = await request(keys.ann!, body);
  if (created.status !== 201) throw new Error(`request answered ${created.status}: ${await created.text()}`);
  const { id } = await json(created);
  const approved = await send('POST', `/v1/overrides/${id}/approve`, keys.bob!, { note: 'checked' });
  expect(approved.status).toBe(200);
  return id as string;
}

/** The check after the replica's registry has the change (the poll runs every 100 ms in tests). */
async function checkUntil(key: string, mc: string, accept: (verdict: Record<string, any>) => boolean, reference?: string) {
  return (await waitFor(() => check(key, mc, reference), accept, 1000)).value;
}

beforeAll(async () => {
  // A patient command timeout: on a loaded machine a 150 ms one turns checks degraded (backend_unavailable), which
  // is right for the service and beside the point here.
  t = await startTestApp({ LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent', MONITORING_POLL_MS: '100', REDIS_COMMAND_TIMEOUT_MS: '2000' }, { now: clock });
  // A broker minimum above the federal one: under it is a review (insurance_below_minimum), never the 49 CFR 387.9 hard stop.
  await t.publishRules({ ...DEFAULT_RULE_SET, insurance: { ...DEFAULT_RULE_SET.insurance, min_bipd_general_usd: 1_000_000 } });
  await serve(carriers());
  keys.check = (await t.createKey({ account: 'acme', scopes: ['eligibility', 'batch', 'monitoring'] })).key;
  keys.ann = (await t.createKey({ account: 'acme', scopes: ['review', 'approve'], actor: 'Ann Lee' })).key;
  keys.bob = (await t.createKey({ account: 'acme', scopes: ['review', 'approve'], actor: 'Bob Ray' })).key;
  keys.anon = (await t.createKey({ account: 'acme', scopes: ['review', 'approve'] })).key;
  keys.reviewOnly = (await t.createKey({ account: 'acme', scopes: ['review'] })).key;
  keys.globex = (await t.createKey({ account: 'globex', scopes: ['review', 'approve', 'eligibility', 'batch'] })).key;
});

afterAll(async () => {
  await t?.stop();
});

describe('requests', () => {
  it('refuses every hard stop, degraded reason and carrier_not_found (422 not_overridable, naming it)', async () => {
    for (const reason of REASON_CODES.filter((code) => REASONS[code].kind !== 'review')) {
      const response = await request(keys.ann!, { mc_number: '300004', reasons: [reason] });
      expect(response.status, reason).toBe(422);
      expect(await json(response)).toMatchObject({ code: 'not_overridable', reason });
    }
    // A review reason of a carrier that also carries a hard stop, and an unknown carrier.
    expect(await json(await request(keys.ann!, { mc_number: '300004', reasons: ['new_authority'] }))).toMatchObject({ code: 'not_overridable', reason: 'out_of_service_order' });
    expect(await json(await request(keys.ann!, { mc_number: '999999', reasons: ['new_authority'] }))).toMatchObject({ code: 'not_overridable', reason: 'carrier_not_found' });
  });

  it('validates scopes, reason codes, actors and key scopes', async () => {
    const far = new Date(clock() + 366 * 86_400_000).toISOString();
    expect((await request(keys.ann!, { mc_number: '300003', reasons: ['new_authority'], scope: { until: far } })).status).toBe(422);
    expect((await request(keys.ann!, { mc_number: '300003', reasons: ['new_authority'], reason_code: 'other' })).status).toBe(422);
    expect((await request(keys.anon!, { mc_number: '300003', reasons: ['new_authority'] })).status).toBe(422);
    expect((await request(keys.ann!, { mc_number: '300003', reasons: ['new_authority'], actor: 'Bob Ray' })).status).toBe(422);
    expect((await request(keys.check!, { mc_number: '300003', reasons: ['new_authority'] })).status).toBe(403);
  });
});

describe('four-eyes and the effect on verdicts', () => {
  let id = '';
  let second: TestApp | null = null;
  // The second replica shares the first one's prefix: stopped without deleting the keys.
  afterAll(async () => {
    await second?.app.stop();
    second?.redis.disconnect();
  });

  it('an override waits for a second person; the requester cannot approve it, whatever the key', async () => {
    second = await startTestApp({ REDIS_PREFIX: t.config.REDIS_PREFIX, LOG_LEVEL: 'silent', REDIS_COMMAND_TIMEOUT_MS: '2000' }, { now: clock });
    const created = await request(keys.ann!, { mc_number: 'MC-300001', reasons: ['insurance_below_minimum'], note: 'insurer confirmed a $1M policy' });
    expect(created.status, await created.clone().text()).toBe(201);
    const body = await json(created);
    id = body.id;
    expect(body).toMatchObject({ status: 'pending_approval', kind: 'override', mc_number: '300001', requested_by: 'Ann Lee', reasons: ['insurance_below_minimum'] });
    expect((await check(keys.check!, '300001')).tier).toBe('conditional');
    const own = await send('POST', `/v1/overrides/${id}/approve`, keys.ann!, {});
    expect(own.status).toBe(403);
    expect((await json(own)).code).toBe('same_actor');
    // A key without an actor naming the requester (any case) is the requester too.
    expect((await json(await send('POST', `/v1/overrides/${id}/approve`, keys.anon!, { actor: ' ann lee ' }))).code).toBe('same_actor');
    expect((await send('POST', `/v1/overrides/${id}/approve`, keys.reviewOnly!, { actor: 'Carol' })).status).toBe(403);
    const approved = await send('POST', `/v1/overrides/${id}/approve`, keys.anon!, { actor: 'Carol Diaz', note: 'policy seen' });
    expect(approved.status).toBe(200);
    expect(await json(approved)).toMatchObject({ status: 'active', approved_by: 'Carol Diaz' });
    expect((await send('POST', `/v1/overrides/${id}/approve`, keys.bob!, {})).status).toBe(409);
  });

  it('lifts the check on this replica and a second one within a second, keeping the evidence', async () => {
    const verdict = await checkUntil(keys.check!, '300001', (v) => v.eligible === true);
    expect(verdict).toMatchObject({ eligible: true, tier: 'standard', reasons: [], degraded: false });
    expect(verdict.overrides).toEqual([expect.objectContaining({ id, kind: 'override', reasons: ['insurance_below_minimum'], reason_code: 'verified_with_insurer', requested_by: 'Ann Lee', approved_by: 'Carol Diaz' })]);
    expect(verdict.evidence.reasons.map((item: { reason: string }) => item.reason)).toEqual(['insurance_below_minimum']);
    expect(Object.keys(verdict).slice(-2)).toEqual(['overrides', 'evidence']);
    const started = Date.now();
    const remote = await waitFor(async () => json(await second!.post('/v1/eligibility', { mc_number: '300001' }, as(keys.check!))), (v) => v.eligible === true, 1000);
    expect(remote.value.overrides[0].id).toBe(id);
    expect(Date.now() - started).toBeLessThan(1000);
    // The decision record names the override.
    const record = await json(await t.get(`/v1/decisions/${verdict.decision_id}`, as(keys.check!)));
    expect(record.override_ids).toEqual([id]);
    expect(record.verdict).toMatchObject({ eligible: true, tier: 'standard', reasons: [] });
    expect(record.verdict.overrides[0].id).toBe(id);
    // Another account's overrides never change its verdict.
    expect(await check(keys.globex!, '300001')).toMatchObject({ eligible: false, tier: 'conditional' });
  });

  it('a revocation reaches the second replica within a second too', async () => {
    const other = await granted({ mc_number: '300005', reasons: ['mcs150_outdated'], scope: { until: new Date(clock() + 86_400_000).toISOString() } });
    await waitFor(async () => json(await second!.post('/v1/eligibility', { mc_number: '300005' }, as(keys.check!))), (v) => v.eligible === true, 1000);
    const revoked = await send('DELETE', `/v1/overrides/${other}`, keys.bob!, { note: 'customer withdrew' });
    expect(revoked.status).toBe(200);
    expect((await json(revoked)).status).toBe('revoked');
    const back = await waitFor(async () => json(await second!.post('/v1/eligibility', { mc_number: '300005' }, as(keys.check!))), (v) => v.eligible === false, 1000);
    expect(back.value.reasons).toEqual(['mcs150_outdated']);
    expect((await send('DELETE', `/v1/overrides/${other}`, keys.bob!, {})).status).toBe(409);
  });

  it('an until_change override is invalidated by a new BIPD amount, and the review opens again', async () => {
    await serve(carriers({ bipd: 800_000 }));
    const verdict = await checkUntil(keys.check!, '300001', (v) => v.eligible === false);
    expect(verdict.reasons).toEqual(['insurance_below_minimum']);
    const shown = await waitFor(async () => json(await t.get(`/v1/overrides/${id}`, as(keys.bob!))), (o) => o.status === 'invalidated', 2000);
    expect(shown.value.closed_note).toMatch(/insurance_below_minimum/);
    expect(shown.value.history.map((entry: { action: string }) => entry.action)).toEqual(['requested', 'approved', 'invalidated']);
    expect(shown.value.history[1]).toMatchObject({ actor: 'Carol Diaz', verdict_before: { eligible: false }, verdict_after: { eligible: true, tier: 'standard' } });
    const reviews = await json(await t.get('/v1/reviews?status=open', as(keys.bob!)));
    expect(reviews.items.map((item: { mc_number: string }) => item.mc_number)).toContain('300001');
    await serve(carriers());
  });
});

describe('clearances', () => {
  it('is bound to the list entry: a changed SDN entry in a new ingest invalidates it', async () => {
    const id = await granted({ mc_number: '300002', reasons: ['possible_ofac_match'], reason_code: 'false_positive_name_match', note: 'different company, other state' });
    const created = await json(await t.get(`/v1/overrides/${id}`, as(keys.bob!)));
    expect(created).toMatchObject({ kind: 'clearance', bindings: [{ source: 'ofac_sdn', record_id: '7001', matched_name: 'NORTHWINDE HOLDINGS' }] });
    await checkUntil(keys.check!, '300002', (v) => v.eligible === true);
    await serve(carriers({ sdnName: 'NORTHWINDE HOLDINGS LTD' }));
    expect((await checkUntil(keys.check!, '300002', (v) => v.eligible === false)).reasons).toEqual(['possible_ofac_match']);
    await waitFor(async () => json(await t.get(`/v1/overrides/${id}`, as(keys.bob!))), (o) => o.status === 'invalidated', 2000);
  });

  it('is bound to the carrier names: a changed name invalidates it', async () => {
    const id = await granted({ mc_number: '300002', reasons: ['possible_ofac_match'], reason_code: 'false_positive_name_match' });
    await checkUntil(keys.check!, '300002', (v) => v.eligible === true);
    await serve(carriers({ sdnName: 'NORTHWINDE HOLDINGS LTD', legalName: 'NORTHWIND LOGISTICS LLC' }));
    await checkUntil(keys.check!, '300002', (v) => v.eligible === false);
    const shown = await waitFor(async () => json(await t.get(`/v1/overrides/${id}`, as(keys.bob!))), (o) => o.status === 'invalidated', 2000);
    expect(shown.value.closed_note).toMatch(/name changed/);
    await serve(carriers());
  });
});

describe('scopes in time and by reference', () => {
  it('a reference-scoped override covers only checks and batch rows carrying that reference', async () => {
    const id = await granted({ mc_number: '300003', reasons: ['new_authority'], reason_code: 'one_time_approval', scope: { reference: 'LOAD-123' } });
    const lifted = await checkUntil(keys.check!, '300003', (v) => v.eligible === true, 'LOAD-123');
    expect(lifted.overrides[0]).toMatchObject({ id, scope: { reference: 'LOAD-123' } });
    expect((await check(keys.check!, '300003', 'LOAD-124')).tier).toBe('conditional');
    expect((await check(keys.check!, '300003')).tier).toBe('conditional');
    const job = await submit(t, keys.check!, [{ mc: '300003', ref: 'LOAD-123' }, { mc: '300003', ref: 'LOAD-9' }, { mc: '300003' }]);
    await waitTerminal(t, keys.check!, job.job_id);
    const rows = (await report(t, keys.check!, job.job_id)).records;
    expect(rows.map((row) => row.outcome)).toEqual(['eligible', 'review', 'review']);
    expect(rows.map((row) => row.tier)).toEqual(['standard', 'conditional', 'conditional']);
    const record = await json(await t.get(`/v1/decisions/${rows[0]!.decision_id}`, as(keys.check!)));
    expect(record.override_ids).toEqual([id]);
    // Another account's check and batch row carrying the same reference are untouched.
    expect((await check(keys.globex!, '300003', 'LOAD-123')).tier).toBe('conditional');
    const foreign = await submit(t, keys.globex!, [{ mc: '300003', ref: 'LOAD-123' }]);
    await waitTerminal(t, keys.globex!, foreign.job_id);
    expect((await report(t, keys.globex!, foreign.job_id)).records.map((row) => row.outcome)).toEqual(['review']);
  });

  it('expires to the second on the service clock, and the expiry is logged and announced', async () => {
    // Watched, so monitoring announces each flip of the account's verdict (verdict.changed) too.
    expect((await send('PUT', '/v1/watchlist/300005', keys.check!)).status).toBe(201);
    const mkeys = monitoringKeys(t.config.REDIS_PREFIX);
    await waitFor(() => t.redis.hexists(mkeys.baseline(shardOf('300005')), '300005'), (found) => found === 1, 3000);
    const flips = async () => (await json(await t.get('/v1/events?limit=1000', as(keys.check!)))).events
      .filter((event: { type: string; mc: string }) => event.type === 'verdict.changed' && event.mc === '300005');
    const until = new Date(Math.ceil(clock() / 1000) * 1000 + 60_000);
    // Asked for 750 ms past a whole second: it runs to that second.
    const id = await granted({ mc_number: '300005', reasons: ['mcs150_outdated'], scope: { until: new Date(until.getTime() + 750).toISOString() } });
    expect((await json(await t.get(`/v1/overrides/${id}`, as(keys.bob!)))).expires_at).toBe(until.toISOString());
    await checkUntil(keys.check!, '300005', (v) => v.eligible === true);
    const lifted = await waitFor(flips, (found) => found.length === 1, 3000);
    expect(lifted.value[0]).toMatchObject({ trigger: 'override', after: { eligible: true, tier: 'standard' }, overrides: [{ id }] });
    heldAt = until.getTime() - 1;
    expect((await check(keys.check!, '300005')).eligible).toBe(true);
    heldAt = until.getTime();
    const expired = await check(keys.check!, '300005');
    expect(expired).toMatchObject({ eligible: false, tier: 'conditional', reasons: ['mcs150_outdated'] });
    const shown = await waitFor(async () => json(await t.get(`/v1/overrides/${id}`, as(keys.bob!))), (o) => o.history.length === 3, 3000);
    heldAt = null;
    expect(shown.value.status).toBe('expired');
    expect(shown.value.history[2]).toMatchObject({ action: 'expired', actor: null });
    const events = await json(await t.get('/v1/events?limit=1000', as(keys.check!)));
    const types = events.events.map((event: { type: string }) => event.type);
    for (const type of ['review.opened', 'override.activated', 'override.expired', 'override.invalidated', 'override.revoked', 'verdict.changed']) expect(types).toContain(type);
    const back = await waitFor(flips, (found) => found.length === 2, 3000);
    expect(back.value[1]).toMatchObject({ after: { eligible: false, tier: 'conditional', reasons: ['mcs150_outdated'] } });
    const activation = events.events.find((event: { type: string; override?: { id: string } }) => event.type === 'override.activated' && event.override?.id === id);
    expect(activation).toMatchObject({ mc: '300005', before: { eligible: false }, after: { eligible: true } });
  });
});

describe("the account policy's overrides section", () => {
  it('four_eyes: false makes an override (never a clearance) active at once; max_days bounds every scope, naming the field', async () => {
    await new PolicyStore(t.redis, policyKeys(t.config.REDIS_PREFIX)).publish('initech', { overrides: { four_eyes: false, max_days: 10 } }, 'test');
    const reviewer = (await t.createKey({ account: 'initech', scopes: ['review', 'approve'], actor: 'Ivy Chen' })).key;
    const checker = (await t.createKey({ account: 'initech', scopes: ['eligibility'] })).key;
    const created = await request(reviewer, { mc_number: '300005', reasons: ['mcs150_outdated'], reason_code: 'verified_with_carrier' });
    expect(created.status).toBe(201);
    const override = await json(created);
    expect(override).toMatchObject({ kind: 'override', status: 'active', requested_by: 'Ivy Chen', approved_by: null, approved_at: override.requested_at });
    // until_change runs at most max_days.
    expect(Date.parse(override.expires_at) - Date.parse(override.requested_at)).toBe(10 * 86_400_000);
    expect((await checkUntil(checker, '300005', (v) => v.eligible === true)).overrides[0].id).toBe(override.id);
    const shown = await json(await t.get(`/v1/overrides/${override.id}`, as(reviewer)));
    expect(shown.history).toMatchObject([{ action: 'requested', actor: 'Ivy Chen', status: 'active', verdict_before: { eligible: false }, verdict_after: { eligible: true } }]);
    // A clearance still waits for a second person.
    const clearance = await request(reviewer, { mc_number: '300002', reasons: ['possible_ofac_match'], reason_code: 'false_positive_name_match' });
    expect(await json(clearance)).toMatchObject({ kind: 'clearance', status: 'pending_approval' });
    // An until beyond max_days is refused naming the field and the policy; one within it is taken.
    const far = await request(reviewer, { mc_number: '300003', reasons: ['new_authority'], scope: { until: new Date(clock() + 11 * 86_400_000).toISOString() } });
    expect(far.status).toBe(422);
    const problem = await json(far);
    expect(problem).toMatchObject({ code: 'validation_failed', errors: [{ path: 'scope.until', message: expect.stringContaining('overrides.max_days') }] });
    expect(problem.detail).toContain('overrides.max_days');
    expect((await request(reviewer, { mc_number: '300003', reasons: ['new_authority'], scope: { until: new Date(clock() + 9 * 86_400_000).toISOString() } })).status).toBe(201);
    // Another account's policy changes nothing for acme: its overrides still wait for approval.
    expect(await json(await request(keys.ann!, { mc_number: '300003', reasons: ['new_authority'], scope: { reference: 'LOAD-77' } }))).toMatchObject({ status: 'pending_approval' });
  });
});

describe('lists and account isolation', () => {
  it('lists overrides by status and the review queue with a cursor', async () => {
    const all = await json(await t.get('/v1/overrides', as(keys.bob!)));
    expect(all.items.length).toBeGreaterThanOrEqual(6);
    const invalidated = await json(await t.get('/v1/overrides?status=invalidated', as(keys.bob!)));
    expect(invalidated.items.length).toBe(3);
    expect(invalidated.items.every((item: { status: string }) => item.status === 'invalidated')).toBe(true);
    const first = await json(await t.get('/v1/reviews?limit=1', as(keys.bob!)));
    expect(first.items).toHaveLength(1);
    expect(first.next_cursor).toMatch(/^r1\./);
    const next = await json(await t.get(`/v1/reviews?limit=1&after=${first.next_cursor}`, as(keys.bob!)));
    expect(Number(next.items[0].mc_number)).toBeGreaterThan(Number(first.items[0].mc_number));
    expect(first.items[0]).toMatchObject({ id: `rv_${first.items[0].mc_number}`, seen_count: expect.any(Number), first_seen_at: expect.any(String) });
  });

  it('another account sees nothing of this one and its ids are unknown on every route', async () => {
    const mine = (await json(await t.get('/v1/overrides', as(keys.bob!)))).items[0].id as string;
    const unknown = `ovr_${'0'.repeat(32)}`;
    for (const id of [mine, unknown]) {
      const responses = [
        await t.get(`/v1/overrides/${id}`, as(keys.globex!)),
        await send('POST', `/v1/overrides/${id}/approve`, keys.globex!, { actor: 'Zed' }),
        await send('POST', `/v1/overrides/${id}/reject`, keys.globex!, { actor: 'Zed' }),
        await send('DELETE', `/v1/overrides/${id}`, keys.globex!, { actor: 'Zed' }),
      ];
      for (const response of responses) {
        expect(response.status).toBe(404);
        expect((await json(response)).detail).toBe('No override with this id exists for this account.');
      }
    }
    expect((await json(await t.get('/v1/overrides', as(keys.globex!)))).items).toEqual([]);
    // Its review queue holds only what it checked itself (300001 and 300003), none of acme's other carriers.
    const queue = await waitFor(async () => (await json(await t.get('/v1/reviews', as(keys.globex!)))).items.map((item: { mc_number: string }) => item.mc_number),
      (mcs: string[]) => mcs.length === 2, 2000);
    expect(queue.value).toEqual(['300001', '300003']);
  });
});
