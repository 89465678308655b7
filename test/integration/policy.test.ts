// Account policies over real HTTP and Redis: publish, read, versions kept, the floor enforced with every field
// named, a dry run that matches what publishing then does, single checks, batch rows (pinned at submit) and
// monitoring listings under the policy, another account untouched, and a second replica following within 1 s.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanCarrier, startTestApp, waitFor, type TestApp } from '../helpers/harness.js';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.js';
import { report, submit, waitTerminal } from './batch-helpers.js';

let t: TestApp;
let replica: TestApp;
let policyKey: string;
let checkKey: string;
let otherKey: string;
const day = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);

const STRICT = {
  insurance: { min_bipd_usd: 1_000_000 },
  authority: { min_age_days: 180 },
  safety: { conditional_rating: 'block' },
  outcomes: { mcs150_outdated: 'pass' },
};

function put(app: TestApp, body: unknown, key: string): Promise<Response> {
  return fetch(`${app.baseUrl}/v1/policy`, { method: 'PUT', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: JSON.stringify(body) });
}
async function check(app: TestApp, mc: string, key: string) {
  return (await app.post('/v1/eligibility', { mc_number: mc }, { 'x-api-key': key })).json() as Promise<{ eligible: boolean; tier: string; reasons: string[]; policy_version: number | null; decision_id: string; evidence: { reasons: Array<{ reason: string; rule: Record<string, unknown> | null }> } }>;
}

beforeAll(async () => {
  t = await startTestApp();
  replica = await startTestApp({ REDIS_PREFIX: t.config.REDIS_PREFIX, ROLE: 'api' });
  await t.publishRules();
  await t.writeSnapshot([
    cleanCarrier('500001', { insurance: { bipd_on_file_usd: 800_000, bipd_required_usd: 750_000, cancellation_effective_on: null } }),
    cleanCarrier('500002', { authority: { status: 'active', granted_on: day(120), revocation_pending_on: null, revoked_on: null } }),
    cleanCarrier('500003', { safety_rating: 'C' }),
    cleanCarrier('500004', { mcs150_date: day(900) }),
    cleanCarrier('500005'),
  ]);
  ({ key: policyKey } = await t.createKey({ scopes: ['policy', 'eligibility', 'batch', 'monitoring'], account: 'acme' }));
  ({ key: checkKey } = await t.createKey({ scopes: ['eligibility'], account: 'acme' }));
  ({ key: otherKey } = await t.createKey({ scopes: ['eligibility', 'policy'], account: 'globex' }));
  await replica.app.parts.state.poll();
});

afterAll(async () => {
  await replica?.stop();
  await t?.stop();
});

describe('account policy', () => {
  it('needs the policy scope, and an account without a policy answers 404 and policy_version null', async () => {
    expect((await put(t, STRICT, checkKey)).status).toBe(403);
    expect((await t.get('/v1/policy', { 'x-api-key': policyKey })).status).toBe(404);
    expect((await check(t, 'MC-500005', checkKey)).policy_version).toBeNull();
  });

  it('refuses a looser document with 422 naming every offending field, and publishes nothing', async () => {
    const response = await put(t, { insurance: { min_bipd_usd: 100 }, mcs150: { max_age_months: 60 }, outcomes: { possible_ofac_match: 'pass', do_not_use: 'review' } }, policyKey);
    expect(response.status).toBe(422);
    const problem = await response.json() as { type: string; errors: Array<{ path: string }> };
    expect(problem.type).toMatch(/policy_below_floor$/);
    expect(problem.errors.map((e) => e.path).sort()).toEqual(['insurance.min_bipd_usd', 'mcs150.max_age_months', 'outcomes.do_not_use', 'outcomes.possible_ofac_match']);
    expect((await t.get('/v1/policy', { 'x-api-key': policyKey })).status).toBe(404);
  });

  it('a dry run names exactly the verdicts that publishing then changes', async () => {
    const mcs = ['500001', '500002', '500003', '500004', '500005'];
    const before = Object.fromEntries(await Promise.all(mcs.map(async (mc) => [mc, await check(t, mc, checkKey)] as const)));
    const dry = await (await t.post('/v1/policy/dry-run', { policy: STRICT, mc_numbers: mcs.map((mc) => `MC-${mc}`) }, { 'x-api-key': policyKey })).json() as {
      evaluated: number; changed: number; changes: Array<{ mc_number: string; before: { tier: string }; after: { tier: string; reasons: string[] } }>;
    };
    expect(dry.evaluated).toBe(5);
    expect(dry.changes.map((c) => c.mc_number).sort()).toEqual(['500001', '500002', '500003', '500004']);
    expect((await t.get('/v1/policy', { 'x-api-key': policyKey })).status).toBe(404); // nothing published

    const published = await put(t, { ...STRICT, actor: 'dana' }, policyKey);
    expect(published.status).toBe(200);
    expect(await published.json()).toMatchObject({ version: 1, published_by: 'dana', policy: STRICT });
    await t.app.parts.policy.book.poll();
    for (const mc of mcs) {
      const after = await check(t, mc, checkKey);
      const change = dry.changes.find((c) => c.mc_number === mc);
      expect({ mc, tier: after.tier, reasons: after.reasons }).toEqual({ mc, tier: change?.after.tier ?? before[mc]?.tier, reasons: change?.after.reasons ?? before[mc]?.reasons });
      expect(after.policy_version).toBe(1);
    }
  });

  it('each knob in single checks: raised BIPD, longer authority age, Conditional blocked, MCS-150 waived', async () => {
    expect(await check(t, '500001', checkKey)).toMatchObject({ eligible: false, tier: 'conditional', reasons: ['insurance_below_minimum'] });
    expect(await check(t, '500002', checkKey)).toMatchObject({ eligible: false, reasons: ['new_authority'] });
    const blocked = await check(t, '500003', checkKey);
    expect(blocked).toMatchObject({ eligible: false, tier: 'blocked', reasons: ['conditional_safety_rating'] });
    expect(blocked.evidence.reasons[0]?.rule).toMatchObject({ policy_rule: 'safety.conditional_rating', policy_version: 1 });
    expect(await check(t, '500004', checkKey)).toMatchObject({ eligible: true, reasons: [] });
    expect(await check(t, '500005', checkKey)).toMatchObject({ eligible: true, reasons: [] });
  });

  it('the decision record keeps the policy version and content hash', async () => {
    const verdict = await check(t, '500003', checkKey);
    const record = await (await t.get(`/v1/decisions/${verdict.decision_id}`, { 'x-api-key': checkKey })).json() as { verdict: { policy_version: number; tier: string; evidence: { policy?: { sha256: string } } } };
    const current = await (await t.get('/v1/policy', { 'x-api-key': policyKey })).json() as { sha256: string };
    expect(record.verdict).toMatchObject({ policy_version: 1, tier: 'blocked' });
    expect(record.verdict.evidence.policy?.sha256).toBe(current.sha256);
  });

  it('never changes another account’s verdicts', async () => {
    expect(await check(t, '500003', otherKey)).toMatchObject({ tier: 'conditional', policy_version: null });
    expect(await check(t, '500004', otherKey)).toMatchObject({ eligible: false, reasons: ['mcs150_outdated'] });
    expect((await t.get('/v1/policy', { 'x-api-key': otherKey })).status).toBe(404);
  });

  it('batch rows use the policy pinned at submit', async () => {
    const job = await submit(t, policyKey, [{ mc: '500003', ref: 'a' }, { mc: '500004', ref: 'b' }]);
    await waitTerminal(t, policyKey, job.job_id);
    const { records } = await report(t, policyKey, job.job_id);
    expect(records.map((r) => [r.mc, r.outcome, r.tier])).toEqual([['500003', 'hard_stop', 'blocked'], ['500004', 'eligible', 'preferred']]);
  });

  it('monitoring lists the account’s watched carriers under its policy', async () => {
    await t.post('/v1/watchlist', { items: [{ mc: '500003' }] }, { 'x-api-key': policyKey });
    const page = await (await t.get('/v1/watchlist', { 'x-api-key': policyKey })).json() as { items: Array<{ mc_number?: string; mc?: string; verdict: { tier: string } }> };
    expect(page.items[0]?.verdict.tier).toBe('blocked');
  });

  it('keeps every version, reaches a second replica within 1 s, and a dry run needs no publish', async () => {
    const next = await put(t, { ...STRICT, outcomes: {} }, policyKey);
    expect(await next.json()).toMatchObject({ version: 2 });
    expect(await (await t.get('/v1/policy/versions/1', { 'x-api-key': policyKey })).json()).toMatchObject({ version: 1, policy: STRICT });
    expect((await t.get('/v1/policy/versions/3', { 'x-api-key': policyKey })).status).toBe(404);
    expect((await t.get('/v1/policy/versions/1', { 'x-api-key': otherKey })).status).toBe(404);
    const { elapsedMs, value } = await waitFor(() => check(replica, '500004', checkKey), (v) => v.policy_version === 2, 3000);
    expect(value).toMatchObject({ eligible: false, reasons: ['mcs150_outdated'] });
    expect(elapsedMs).toBeLessThan(1000);
  });

  it('the CLI publishes, shows and dry-runs for an account, with the same floor', async () => {
    const file = join(tmpdir(), `policy-${process.pid}.json`);
    writeFileSync(file, JSON.stringify({ safety: { conditional_rating: 'block' } }));
    const dry = await runCli(t.config.REDIS_PREFIX, 'policy', 'dry-run', file, '--account', 'globex', '--mc', 'MC-500003', '500005');
    expect(dry.code).toBe(0);
    expect(JSON.parse(dry.stdout)).toMatchObject({ evaluated: 2, changed: 1, changes: [{ mc_number: '500003', before: { tier: 'conditional' }, after: { tier: 'blocked' } }] });
    const published = await runCli(t.config.REDIS_PREFIX, 'policy', 'publish', file, '--account', 'globex', '--actor', 'ops');
    expect(JSON.parse(published.stdout)).toMatchObject({ version: 1, published_by: 'ops' });
    expect(JSON.parse((await runCli(t.config.REDIS_PREFIX, 'policy', 'show', '--account', 'globex')).stdout)).toMatchObject({ version: 1 });
    writeFileSync(file, JSON.stringify({ insurance: { min_bipd_usd: 1 } }));
    const refused = await runCli(t.config.REDIS_PREFIX, 'policy', 'publish', file, '--account', 'globex');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('insurance.min_bipd_usd');
  });
});
