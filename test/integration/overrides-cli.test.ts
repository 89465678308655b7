// The operator CLI's `reviews list` and `overrides list|show|revoke` as operators run them (child processes, the
// service's own prefix), against a running service and real Redis: the CLI sees what the API sees, and a
// revocation from the CLI reaches the serving replica and the account's history and events like one via the API.
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { verifyExport } from '../../src/decisions/index.js';
import { overrideKeys } from '../../src/overrides/index.js';
import { runCli } from '../helpers/cli.js';
import { cleanCarrier, startTestApp, waitFor, type TestApp } from '../helpers/harness.js';

let t: TestApp;
let id = '';
const { privateKey } = generateKeyPairSync('ed25519');
const keys: Record<string, string> = {};
const json = (response: Response) => response.json() as Promise<Record<string, any>>;
const as = (key: string) => ({ 'x-api-key': key });
const send = (method: string, path: string, key: string, body: unknown) => fetch(`${t.baseUrl}${path}`, {
  method, headers: { ...as(key), 'content-type': 'application/json' }, body: JSON.stringify(body),
});
const check = async (mc: string) => json(await t.post('/v1/eligibility', { mc_number: mc }, as(keys.check!)));
const cli = (...args: string[]) => runCli(t.config.REDIS_PREFIX, ...args);

beforeAll(async () => {
  t = await startTestApp({ LOG_LEVEL: 'silent', REDIS_COMMAND_TIMEOUT_MS: '2000' });
  await t.publishRules();
  await t.writeSnapshot([cleanCarrier('310001', { mcs150_date: '2019-01-01' }), cleanCarrier('310002', { mcs150_date: '2019-01-01' })]);
  keys.check = (await t.createKey({ account: 'acme', scopes: ['eligibility', 'monitoring'] })).key;
  keys.ann = (await t.createKey({ account: 'acme', scopes: ['review', 'approve'], actor: 'Ann Lee' })).key;
  keys.bob = (await t.createKey({ account: 'acme', scopes: ['review', 'approve'], actor: 'Bob Ray' })).key;
});

afterAll(async () => {
  delete process.env.DECISION_SIGNING_KEY;
  await t?.stop();
});

it('lists the review queue and the overrides, shows one with its history, and revokes it on every replica', { timeout: 120_000 }, async () => {
  // The first checks once the replica decides with the rule set (its first policy read may still be under way).
  for (const mc of ['310001', '310002']) await waitFor(() => check(mc), (verdict) => verdict.tier === 'conditional', 3000);
  const created = await json(await send('POST', '/v1/overrides', keys.ann!, {
    mc_number: '310001', reasons: ['mcs150_outdated'], scope: { until_change: true }, reason_code: 'verified_with_carrier', note: 'new MCS-150 mailed',
  }));
  id = created.id as string;
  expect((await send('POST', `/v1/overrides/${id}/approve`, keys.bob!, { note: 'seen' })).status).toBe(200);
  await waitFor(() => check('310001'), (verdict) => verdict.eligible === true, 1000);
  // The sightings of the first checks are written in the background: wait until the queue holds both carriers.
  await waitFor(async () => (await json(await t.get('/v1/reviews', as(keys.bob!)))).items.length, (count) => count === 2, 3000);

  // One round of processes (each CLI start costs seconds on a busy machine).
  const [reviews, listed, shown, foreign, missingActor, foreignRevoke] = await Promise.all([
    cli('reviews', 'list', '--account', 'acme'),
    cli('overrides', 'list', '--account', 'acme', '--status', 'active'),
    cli('overrides', 'show', id, '--account', 'acme'),
    cli('overrides', 'show', id, '--account', 'globex'),
    cli('overrides', 'revoke', id, '--account', 'acme'),
    cli('overrides', 'revoke', id, '--account', 'globex', '--actor', 'Zed'),
  ]);
  expect(JSON.parse(reviews.stdout)).toMatchObject({
    account: 'acme', next_cursor: null,
    items: [{ id: 'rv_310001', mc_number: '310001', status: 'covered' }, { id: 'rv_310002', mc_number: '310002', status: 'open', reasons: ['mcs150_outdated'] }],
  });
  expect(JSON.parse(listed.stdout)).toMatchObject({ account: 'acme', items: [{ id, status: 'active', approved_by: 'Bob Ray' }], next_cursor: null });
  expect(JSON.parse(shown.stdout)).toMatchObject({ id, status: 'active', history: [{ action: 'requested', actor: 'Ann Lee' }, { action: 'approved', actor: 'Bob Ray' }] });
  // Another account's override is as unknown as one that never existed, on show and revoke; revoke names who does it.
  for (const refused of [foreign, foreignRevoke]) {
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(`account globex has no override ${id}`);
  }
  expect(missingActor.code).not.toBe(0);
  expect(missingActor.stderr).toMatch(/--actor/);

  const revoked = await cli('overrides', 'revoke', id, '--account', 'acme', '--actor', 'Carol Diaz', '--note', 'carrier stopped answering');
  expect(revoked.code, revoked.stderr).toBe(0);
  expect(JSON.parse(revoked.stdout)).toMatchObject({ id, status: 'revoked', closed_by: 'Carol Diaz', closed_note: 'carrier stopped answering' });
  // The serving replica stops applying it, and the account's history and events show who revoked it.
  expect((await waitFor(() => check('310001'), (verdict) => verdict.eligible === false, 1000)).value.reasons).toEqual(['mcs150_outdated']);
  const history = (await json(await t.get(`/v1/overrides/${id}`, as(keys.bob!)))).history;
  expect(history[2]).toMatchObject({ action: 'revoked', actor: 'Carol Diaz', verdict_before: { eligible: true }, verdict_after: { eligible: false, reasons: ['mcs150_outdated'] } });
  const events = (await json(await t.get('/v1/events?limit=100', as(keys.check!)))).events as Array<{ type: string; override?: { id: string; actor: string } }>;
  expect(events.find((event) => event.type === 'override.revoked')?.override).toMatchObject({ id, actor: 'Carol Diaz' });
});

it('decisions export writes every override state change of the range next to the decisions, signed the same way', async () => {
  process.env.DECISION_SIGNING_KEY = privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64');
  const dir = await mkdtemp(join(tmpdir(), 'override-log-'));
  try {
    const from = new Date(Date.now() - 3_600_000).toISOString();
    const to = new Date(Date.now() + 60_000).toISOString();
    const result = await cli('decisions', 'export', '--from', from, '--to', to, '--out', dir);
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout);
    expect(summary.records).toBeGreaterThan(0);
    expect(summary.override_log.entries).toBe(3);
    const files = await readdir(dir);
    expect(files.some((name) => name.startsWith('decisions-'))).toBe(true);
    const logFile = summary.override_log.files[0].file as string;
    expect(files).toContain(logFile.split('/').pop());
    const lines = gunzipSync(await readFile(logFile)).toString('utf8').trim().split('\n').map((line) => JSON.parse(line));
    expect(lines.map((line) => [line.override_id, line.action, line.actor, line.status])).toEqual([
      [id, 'requested', 'Ann Lee', 'pending_approval'], [id, 'approved', 'Bob Ray', 'active'], [id, 'revoked', 'Carol Diaz', 'revoked'],
    ]);
    expect(lines[2]).toMatchObject({
      account: 'acme', note: 'carrier stopped answering', verdict_before: { eligible: true }, verdict_after: { eligible: false },
      override: { mc_number: '310001', kind: 'override', reasons: ['mcs150_outdated'], reason_code: 'verified_with_carrier', requested_by: 'Ann Lee' },
    });
    expect(await verifyExport(logFile, createPublicKey(privateKey))).toMatchObject({ ok: true, records: 3 });
    // The log is never trimmed or expired: it outlives the decision records it explains.
    expect(await t.redis.ttl(overrideKeys(t.config.REDIS_PREFIX).log('acme'))).toBe(-1);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}, 120_000);
