// Monitoring per account, on the real service (real HTTP port, real Redis, own prefix, the detector polling every
// 100 ms): a policy publish announces the publishing account's changed verdicts and nobody else's; a data change
// that only the policy makes matter reaches that account alone; an override's activation, revocation and expiry
// flip only its own account's monitoring verdict, each with a verdict.changed event carrying a decision record.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CarrierRecord } from '../../src/core/carrier.js';
import { accountBaselineField, monitoringKeys, shardOf } from '../../src/monitoring/keys.js';
import { cleanCarrier, startTestApp, waitFor, type TestApp } from '../helpers/harness.js';

/** The service's clock: real time, or held at an instant (an override's expiry). */
let heldAt: number | null = null;
const clock = () => heldAt ?? Date.now();
let t: TestApp;
const keys: Record<string, string> = {};
const outdated = new Date(Date.now() - 900 * 86_400_000).toISOString().slice(0, 10);

interface Event {
  type: string; mc: string | null; trigger: string | null; decision_id: string | null;
  before: { eligible: boolean; tier: string | null; reasons: string[] } | null;
  after: { eligible: boolean; tier: string | null; reasons: string[] } | null;
  overrides?: Array<{ id: string }>;
}

const as = (key: string) => ({ 'x-api-key': key, 'content-type': 'application/json' });
const send = (method: string, path: string, key: string, body?: unknown) => fetch(`${t.baseUrl}${path}`, {
  method, headers: as(key), body: body === undefined ? undefined : JSON.stringify(body),
});

function bipd(mc: string, usd: number): CarrierRecord {
  return cleanCarrier(mc, { insurance: { bipd_on_file_usd: usd, bipd_required_usd: 750_000, cancellation_effective_on: null } });
}

function carriers(second = 2_000_000): CarrierRecord[] {
  return [bipd('400001', 900_000), bipd('400002', second), { ...bipd('400003', 2_000_000), mcs150_date: outdated }];
}

async function flips(account: 'acme' | 'globex', mc: string): Promise<Event[]> {
  const body = await (await t.get('/v1/events?limit=1000', as(keys[account]!))).json() as { events: Event[] };
  return body.events.filter((event) => event.type === 'verdict.changed' && event.mc === mc);
}

async function listed(account: 'acme' | 'globex', mc: string) {
  const page = await (await t.get('/v1/watchlist?limit=500', as(keys[account]!))).json() as {
    items: Array<{ mc: string; verdict: { eligible: boolean; tier: string; reasons: string[]; policy_version: number | null; overrides?: Array<{ id: string }> } }>;
  };
  return page.items.find((item) => item.mc === mc)?.verdict;
}

/** Requests (as ann) and approves (as bob) an override for globex; its id. */
async function granted(mc: string, scope: Record<string, unknown>): Promise<string> {
  const created = await send('POST', '/v1/overrides', keys.ann!, { mc_number: mc, reasons: ['mcs150_outdated'], scope, reason_code: 'verified_with_carrier' });
  expect(created.status).toBe(201);
  const { id } = await created.json() as { id: string };
  expect((await send('POST', `/v1/overrides/${id}/approve`, keys.bob!, { note: 'checked' })).status).toBe(200);
  return id;
}

beforeAll(async () => {
  t = await startTestApp({ MONITORING_POLL_MS: '100' }, { now: clock });
  await t.publishRules();
  await t.writeSnapshot(carriers());
  keys.acme = (await t.createKey({ account: 'acme', scopes: ['monitoring', 'policy', 'eligibility'] })).key;
  keys.globex = (await t.createKey({ account: 'globex', scopes: ['monitoring', 'eligibility'] })).key;
  keys.ann = (await t.createKey({ account: 'globex', scopes: ['review'], actor: 'Ann Lee' })).key;
  keys.bob = (await t.createKey({ account: 'globex', scopes: ['approve'], actor: 'Bob Ray' })).key;
  const items = ['400001', '400002', '400003'].map((mc) => ({ mc }));
  for (const account of ['acme', 'globex'] as const) expect((await t.post('/v1/watchlist', { items }, as(keys[account]!))).status).toBe(200);
  // The detector's first observation: every carrier has its baseline before the tests change anything.
  const mkeys = monitoringKeys(t.config.REDIS_PREFIX);
  await waitFor(() => Promise.all(items.map(({ mc }) => t.redis.hexists(mkeys.baseline(shardOf(mc)), mc))), (found) => found.every((one) => one === 1), 5000);
});

afterAll(async () => {
  await t?.stop();
});

describe('an account policy publish', () => {
  it('announces the publishing account\'s changed verdicts only, each with its own decision record', async () => {
    expect((await send('PUT', '/v1/policy', keys.acme!, { insurance: { min_bipd_usd: 1_500_000 } })).status).toBe(200);
    const [event] = (await waitFor(() => flips('acme', '400001'), (found) => found.length === 1, 3000)).value;
    expect(event).toMatchObject({
      trigger: 'policy', before: { eligible: true, tier: 'standard', reasons: [] },
      after: { eligible: false, tier: 'conditional', reasons: ['insurance_below_minimum'] },
    });
    const record = await (await t.get(`/v1/decisions/${event?.decision_id}`, as(keys.acme!))).json() as { verdict: { policy_version: number; reasons: string[] } };
    expect(record.verdict).toMatchObject({ policy_version: 1, reasons: ['insurance_below_minimum'] });
    // The same tick decided every pair: nothing for the carrier the policy leaves eligible, nothing for globex.
    expect(await flips('acme', '400002')).toEqual([]);
    expect(await flips('globex', '400001')).toEqual([]);
    expect((await t.get(`/v1/decisions/${event?.decision_id}`, as(keys.globex!))).status).toBe(404);
    expect(await listed('acme', '400001')).toMatchObject({ tier: 'conditional', policy_version: 1 });
    expect(await listed('globex', '400001')).toMatchObject({ tier: 'standard', policy_version: null });
  });

  it('a data change that only the policy makes matter reaches that account alone', async () => {
    // $1.2M: still preferred for globex (at least $1M), below acme's $1.5M.
    await t.writeSnapshot(carriers(1_200_000));
    const [event] = (await waitFor(() => flips('acme', '400002'), (found) => found.length === 1, 3000)).value;
    expect(event).toMatchObject({ trigger: 'snapshot', after: { tier: 'conditional', reasons: ['insurance_below_minimum'] } });
    expect(await flips('globex', '400002')).toEqual([]);
  });
});

describe('an override of one account', () => {
  it('activation lifts that account\'s monitoring verdict with an event; the other account watching stays as it was', async () => {
    const id = await granted('400003', { until_change: true });
    const [event] = (await waitFor(() => flips('globex', '400003'), (found) => found.length === 1, 3000)).value;
    expect(event).toMatchObject({
      trigger: 'override', before: { eligible: false, tier: 'conditional', reasons: ['mcs150_outdated'] },
      after: { eligible: true, tier: 'standard', reasons: [] }, overrides: [{ id }],
    });
    const record = await (await t.get(`/v1/decisions/${event?.decision_id}`, as(keys.globex!))).json() as { override_ids: string[] };
    expect(record.override_ids).toEqual([id]);
    // The listing is decided by the replica answering it, which learns of the override at its next state poll.
    const lifted = await waitFor(() => listed('globex', '400003'), (verdict) => verdict?.eligible === true, 3000);
    expect(lifted.value).toMatchObject({ eligible: true, tier: 'standard', overrides: [{ id }] });
    expect(await listed('acme', '400003')).toMatchObject({ eligible: false, tier: 'conditional' });
    expect(await flips('acme', '400003')).toEqual([]);
  });

  it('revocation flips it back, with an event', async () => {
    const [active] = (await (await t.get('/v1/overrides?status=active', as(keys.ann!))).json() as { items: Array<{ id: string }> }).items;
    expect((await send('DELETE', `/v1/overrides/${active?.id}`, keys.ann!, { note: 'carrier filed late after all' })).status).toBe(200);
    const back = (await waitFor(() => flips('globex', '400003'), (found) => found.length === 2, 3000)).value[1];
    expect(back).toMatchObject({ trigger: 'override', before: { eligible: true }, after: { eligible: false, tier: 'conditional', reasons: ['mcs150_outdated'] } });
    expect(back?.overrides).toBeUndefined();
    expect(await flips('acme', '400003')).toEqual([]);
  });

  it('expiry flips it back when its time comes, with an event; unwatching drops the account\'s own baseline', async () => {
    const until = Math.ceil(clock() / 1000) * 1000 + 60_000;
    await granted('400003', { until: new Date(until).toISOString() });
    await waitFor(() => flips('globex', '400003'), (found) => found.length === 3 && found[2]?.after?.eligible === true, 3000);
    heldAt = until;
    const expired = (await waitFor(() => flips('globex', '400003'), (found) => found.length === 4, 3000)).value[3];
    heldAt = null;
    expect(['time', 'override']).toContain(expired?.trigger);
    expect(expired).toMatchObject({ before: { eligible: true }, after: { eligible: false, reasons: ['mcs150_outdated'] } });
    expect(await flips('acme', '400003')).toEqual([]);
    // Own baselines exist only where an account decides on its own: acme's policy; globex's while an override lasted.
    const mkeys = monitoringKeys(t.config.REDIS_PREFIX);
    const own = (mc: string, account: string) => t.redis.hexists(mkeys.accountBaseline(shardOf(mc)), accountBaselineField(mc, account));
    expect(await own('400001', 'globex')).toBe(0);
    await waitFor(() => own('400003', 'globex'), (found) => found === 0, 3000);
    expect(await own('400001', 'acme')).toBe(1);
    expect((await send('DELETE', '/v1/watchlist/400001', keys.acme!)).status).toBe(204);
    expect(await own('400001', 'acme')).toBe(0);
  });
});
