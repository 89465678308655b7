// Legal holds against DECISION_ARCHIVE_YEARS: archived segments past the archive period are deleted unless one of
// their records is held, by account (`decisions legal-hold place --account`) or by MC number (DECISION_LEGAL_HOLD
// or `--mc`). A held segment stays readable and verifiable; an unheld one is deleted (its manifest stays, so the
// chain still verifies) and its records answer 404; a released hold lets the next prune delete what it held. The
// archive period is 1 year here and the prune runs as of two years from now.
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildArchiver, LocalArchiveStore, secondOf, verifyArchive } from '../../src/decisions/index.js';
import { runCli } from '../helpers/cli.js';
import { cleanCarrier, startTestApp, type TestApp } from '../helpers/harness.js';

const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const SIGNING_KEY = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
const TWO_YEARS_MS = 2 * 365.25 * 86_400_000;

let t: TestApp;
let dir: string;
/** One decision per account, each archived in a segment of its own: acme (100001), other (100002), third (100001). */
const ids: Record<'acme' | 'other' | 'third', string> = { acme: '', other: '', third: '' };
const keys: Record<string, string> = {};

const cli = (...args: string[]) => {
  process.env.DECISION_ARCHIVE_DIR = dir;
  process.env.DECISION_LEGAL_HOLD = 'mc:MC-100002';
  return runCli(t.config.REDIS_PREFIX, 'decisions', 'legal-hold', ...args);
};
const get = (who: keyof typeof ids) => t.get(`/v1/decisions/${ids[who]}`, { 'x-api-key': keys[who] as string });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'decision-hold-'));
  t = await startTestApp({
    DECISION_ARCHIVE_DIR: dir, DECISION_ARCHIVE_YEARS: '1', DECISION_LEGAL_HOLD: 'mc:MC-100002', DECISION_SIGNING_KEY: SIGNING_KEY, DECISION_ARCHIVER: 'off',
  });
  await t.publishRules();
  await t.writeSnapshot([cleanCarrier('100001'), cleanCarrier('100002')]);
  for (const [who, account] of [['acme', 'acme'], ['other', 'other-broker'], ['third', 'third-broker']] as const) {
    keys[who] = (await t.createKey({ account })).key;
  }
  await t.app.parts.state.poll();
  const archiver = buildArchiver(t.config, t.redis, t.keys);
  for (const [who, mc] of [['acme', '100001'], ['other', '100002'], ['third', '100001']] as const) {
    // A degraded answer (its record write timed out on a loaded machine) has no record: ask again.
    for (let verdict = null as { decision_id: string; degraded?: boolean } | null; !verdict || verdict.degraded;) {
      verdict = await (await t.post('/v1/eligibility', { mc_number: mc }, { 'x-api-key': keys[who] as string })).json();
      ids[who] = verdict?.decision_id ?? '';
    }
    await archiver.archiveUntil(secondOf(Date.now()) + 1);
    // The next decision falls in a later second: a segment of its own.
    await new Promise((resolve) => setTimeout(resolve, 1100));
  }
  // Out of Redis, so reads come from the archive (the last seconds wait out the eviction margin).
  await new Promise((resolve) => setTimeout(resolve, 2000));
  await archiver.evictBefore(secondOf(Date.now()));
}, 60_000);

afterAll(async () => {
  delete process.env.DECISION_ARCHIVE_DIR;
  delete process.env.DECISION_LEGAL_HOLD;
  await rm(dir, { recursive: true, force: true });
  await t.stop();
});

const dataFiles = async () => (await new LocalArchiveStore(dir).list('hours/')).filter((key) => key.endsWith('.ndjson.br')).length;

describe('legal holds and the archive period', () => {
  it('`legal-hold place` and `list` keep a hold with its reason, who and when, beside the configured ones', async () => {
    const placed = await cli('place', '--account', 'acme', '--reason', 'claim 2026-114 (Doe v. Acme)', '--by', 'general counsel');
    expect(placed.stderr).toBe('');
    expect(JSON.parse(placed.stdout)).toMatchObject({ placed: true, kind: 'account', value: 'acme' });
    const listed = JSON.parse((await cli('list')).stdout);
    expect(listed.placed).toEqual([expect.objectContaining({ kind: 'account', value: 'acme', reason: 'claim 2026-114 (Doe v. Acme)', by: 'general counsel' })]);
    expect(listed.configured).toEqual([{ kind: 'mc', value: '100002' }]);
    const neither = await cli('place', '--reason', 'x');
    expect(neither.code).not.toBe(0);
  }, 60_000);

  it('past the archive period deletes only segments no hold covers; held records still read back', async () => {
    expect(await dataFiles()).toBe(3);
    const archiver = buildArchiver(t.config, t.redis, t.keys);
    expect(await archiver.prune(Date.now() + TWO_YEARS_MS)).toEqual({ deleted: 1, held: 2 });
    expect(await dataFiles()).toBe(2);
    expect((await get('acme')).status).toBe(200);
    expect((await get('other')).status).toBe(200);
    expect((await get('third')).status).toBe(404);
    const verified = await verifyArchive(new LocalArchiveStore(dir), publicKey, { nowMs: Date.now() + TWO_YEARS_MS, archiveYears: 1 });
    expect(verified).toMatchObject({ ok: true, segments: 3, pruned: 1 });
  }, 60_000);

  it('a released hold lets the next prune delete what it held, and the release is logged', async () => {
    const released = await cli('release', '--account', 'acme', '--reason', 'claim settled', '--by', 'general counsel');
    expect(released.code).toBe(0);
    const archiver = buildArchiver(t.config, t.redis, t.keys);
    expect(await archiver.prune(Date.now() + TWO_YEARS_MS)).toEqual({ deleted: 1, held: 1 });
    expect((await get('acme')).status).toBe(404);
    expect((await get('other')).status).toBe(200);
    expect(await readdir(join(dir, 'legal-hold', 'log'))).toHaveLength(2);
    expect((await cli('release', '--account', 'acme', '--reason', 'again')).code).not.toBe(0);
  }, 60_000);
});
