// The continuous archive end to end, as operators and brokers use it: `decisions archive --evict-older-than 0s`
// moves every record into signed, hash-chained segments and out of Redis; GET /v1/decisions/{id} and
// `decisions show` then answer from the archive with the same body as from Redis, and the same 404 for another
// account; GET /v1/decisions and `decisions find` search window and archive; a record that reaches Redis after
// its second was archived is archived again before its bucket is evicted; `decisions verify DIR` accepts the
// archive and names the first file that differs after one flipped byte or one removed manifest; a search pages
// over archive and window together; `decisions export --account --bundle` writes one account's records for a
// period as one signed file that `decisions verify` accepts, and refuses once one record in it is changed.
import { generateKeyPairSync } from 'node:crypto';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { gunzipSync, gzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalArchiveStore } from '../../src/decisions/archive-store.js';
import { idMillis } from '../../src/decisions/record-codec.js';
import { runCli } from '../helpers/cli.js';
import { cleanCarrier, startTestApp, type TestApp } from '../helpers/harness.js';

let t: TestApp;
let key: string;
let otherKey: string;
let dir: string;
const ids: string[] = [];
const bodies = new Map<string, string>();
const { privateKey } = generateKeyPairSync('ed25519');
const SIGNING_KEY = privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64');

const cli = (...args: string[]) => {
  process.env.DECISION_SIGNING_KEY = SIGNING_KEY;
  process.env.DECISION_ARCHIVE_DIR = dir;
  return runCli(t.config.REDIS_PREFIX, ...args);
};
const second = (id: string) => Math.floor(idMillis(id) / 1000);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'decision-archive-'));
  t = await startTestApp({ DECISION_ARCHIVE_DIR: dir });
  await t.publishRules();
  await t.writeSnapshot([cleanCarrier('100001'), cleanCarrier('100002', { safety_rating: 'U' })]);
  ({ key } = await t.createKey());
  ({ key: otherKey } = await t.createKey({ account: 'other-broker' }));
  await t.app.parts.state.poll();
  for (const mc of ['100001', '100002', '999999', '100001']) {
    const verdict = await (await t.post('/v1/eligibility', { mc_number: mc, reference: `ref-${mc}` }, { 'x-api-key': key })).json();
    ids.push(verdict.decision_id);
  }
  await t.post('/v1/eligibility', { mc_number: '100001' }, { 'x-api-key': otherKey });
  for (const id of ids) bodies.set(id, await (await t.get(`/v1/decisions/${id}`, { 'x-api-key': key })).text());
}, 60_000);

afterAll(async () => {
  delete process.env.DECISION_SIGNING_KEY;
  delete process.env.DECISION_ARCHIVE_DIR;
  await rm(dir, { recursive: true, force: true });
  await t.stop();
});

describe('continuous decision archive', () => {
  it('archives every record and evicts it from Redis only once archived', async () => {
    const result = await cli('decisions', 'archive', '--evict-older-than', '0s');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const summary = JSON.parse(result.stdout);
    expect(summary.records).toBe(ids.length + 1);
    for (const id of ids) expect(await t.redis.hlen(t.keys.decisionBucket(second(id)))).toBe(0);
  }, 60_000);

  it('answers GET /v1/decisions/{id} from the archive with the body Redis gave, and the same 404 across accounts', async () => {
    for (const id of ids) {
      const response = await t.get(`/v1/decisions/${id}`, { 'x-api-key': key });
      expect(response.status).toBe(200);
      expect(await response.text()).toBe(bodies.get(id));
    }
    const foreign = await t.get(`/v1/decisions/${ids[0]}`, { 'x-api-key': otherKey });
    const unknownId = `${(ids[0] as string).slice(0, 24)}000000000000`;
    const unknown = await t.get(`/v1/decisions/${unknownId}`, { 'x-api-key': otherKey });
    expect(foreign.status).toBe(404);
    expect(unknown.status).toBe(404);
    const strip = (body: Record<string, unknown>) => ({ ...body, instance: undefined, request_id: undefined });
    expect(strip(await foreign.json())).toEqual(strip(await unknown.json()));
  }, 30_000);

  it('`decisions show` prints the archived record', async () => {
    const result = await cli('decisions', 'show', ids[1] as string);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(JSON.parse(bodies.get(ids[1] as string) as string));
  }, 30_000);

  it('searches by MC number and time over the archive, one account only, page by page', async () => {
    const from = new Date(idMillis(ids[0] as string) - 60_000).toISOString();
    const to = new Date(Date.now() + 60_000).toISOString();
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query = new URLSearchParams({ mc_number: '100001', from, to, limit: '1', ...(cursor ? { cursor } : {}) });
      const response = await t.get(`/v1/decisions?${query.toString()}`, { 'x-api-key': key });
      expect(response.status).toBe(200);
      const page = await response.json() as { items: Array<{ decision_id: string; account: string }>; next_cursor: string | null };
      expect(page.items.length).toBeLessThanOrEqual(1);
      for (const item of page.items) expect(item.account).toBe('acme');
      seen.push(...page.items.map((item) => item.decision_id));
      cursor = page.next_cursor;
    } while (cursor !== null);
    expect(seen).toEqual([ids[0], ids[3]]);
    const bad = await t.get(`/v1/decisions?from=${from}&to=yesterday`, { 'x-api-key': key });
    expect(bad.status).toBe(422);
    const found = await cli('decisions', 'find', '--account', 'acme', '--mc', '100002', '--from', from, '--to', to);
    expect(found.code).toBe(0);
    expect(found.stdout.trim().split('\n').map((line) => JSON.parse(line).decision_id)).toEqual([ids[1]]);
  }, 60_000);

  it('archives a record that reached Redis after its second was archived before evicting that second', async () => {
    const fresh = (await (await t.post('/v1/eligibility', { mc_number: '999999' }, { 'x-api-key': key })).json()).decision_id as string;
    const kept = JSON.parse((await cli('decisions', 'archive', '--evict-older-than', '1d')).stdout);
    expect(kept).toMatchObject({ records: 1, evicted_buckets: 0 });
    // A write that arrives after its second was archived: the same record under a later id of that millisecond.
    const late = `${fresh.slice(0, 24)}${'f'.repeat(12)}`;
    const stored = await t.redis.hget(t.keys.decisionBucket(second(fresh)), fresh);
    expect(stored).not.toBeNull();
    await t.redis.hset(t.keys.decisionBucket(second(fresh)), late, stored as string);
    const result = JSON.parse((await cli('decisions', 'archive', '--evict-older-than', '0s')).stdout);
    expect(result.catch_ups).toBe(1);
    expect(await t.redis.hlen(t.keys.decisionBucket(second(fresh)))).toBe(0);
    const response = await t.get(`/v1/decisions/${late}`, { 'x-api-key': key });
    expect(response.status).toBe(200);
    expect((await response.json()).verdict.mc_number).toBe('999999');
  }, 60_000);

  it('`decisions verify DIR` accepts the archive and names the first file that differs', async () => {
    const ok = await cli('decisions', 'verify', dir);
    expect(ok.stderr).toBe('');
    expect(JSON.parse(ok.stdout)).toMatchObject({ ok: true, records: ids.length + 1 + 1 + 2 });
    const keys = await new LocalArchiveStore(dir).list('');
    const data = keys.find((item) => item.endsWith('.ndjson.br')) as string;
    const copy = await mkdtemp(join(tmpdir(), 'decision-archive-copy-'));
    try {
      await cp(dir, copy, { recursive: true });
      const path = join(copy, ...data.split('/'));
      const bytes = await readFile(path);
      const middle = Math.floor(bytes.length / 2);
      bytes[middle] = (bytes[middle] as number) ^ 1;
      await writeFile(path, bytes);
      const flipped = await runCli(t.config.REDIS_PREFIX, 'decisions', 'verify', copy);
      expect(flipped.code).not.toBe(0);
      expect(flipped.stderr.trim().split('\n')).toHaveLength(1);
      expect(flipped.stderr).toContain(data);
      await cp(dir, copy, { recursive: true, force: true });
      await rm(join(copy, 'chain', '0000000001.manifest.json'));
      const removed = await runCli(t.config.REDIS_PREFIX, 'decisions', 'verify', copy);
      expect(removed.code).not.toBe(0);
      expect(removed.stderr).toContain('chain/0000000001.manifest.json');
    } finally {
      await rm(copy, { recursive: true, force: true });
    }
  }, 60_000);

  it('pages over the archive and the Redis window together, each record once, in id order', async () => {
    const fresh: string[] = [];
    for (let n = 0; n < 2; n++) fresh.push((await (await t.post('/v1/eligibility', { mc_number: '100001' }, { 'x-api-key': key })).json()).decision_id);
    for (const id of fresh) expect(await t.redis.hexists(t.keys.decisionBucket(second(id)), id)).toBe(1);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query = new URLSearchParams({ mc_number: '100001', from: new Date(idMillis(ids[0] as string) - 60_000).toISOString(), to: new Date(Date.now() + 60_000).toISOString(), limit: '1', ...(cursor ? { cursor } : {}) });
      const page = await (await t.get(`/v1/decisions?${query.toString()}`, { 'x-api-key': key })).json() as { items: Array<{ decision_id: string }>; next_cursor: string | null };
      seen.push(...page.items.map((item) => item.decision_id));
      cursor = page.next_cursor;
    } while (cursor !== null);
    expect(seen).toEqual([ids[0], ids[3], ...fresh]);
  }, 60_000);

  it('exports one account\'s records for a period as one signed bundle that verify accepts, and refuses a changed one', async () => {
    const from = new Date(idMillis(ids[0] as string) - 60_000).toISOString();
    const to = new Date(Date.now() + 60_000).toISOString();
    const expected: string[] = [];
    let cursor: string | null = null;
    do {
      const query = new URLSearchParams({ from, to, limit: '500', ...(cursor ? { cursor } : {}) });
      const page = await (await t.get(`/v1/decisions?${query.toString()}`, { 'x-api-key': key })).json() as { items: Array<{ decision_id: string }>; next_cursor: string | null };
      expected.push(...page.items.map((item) => item.decision_id));
      cursor = page.next_cursor;
    } while (cursor !== null);
    const bundle = join(dir, '..', `${dir.split('/').pop() as string}-acme.bundle.ndjson.gz`);
    try {
      const exported = await cli('decisions', 'export', '--account', 'acme', '--from', from, '--to', to, '--bundle', bundle);
      expect(exported.stderr).toBe('');
      expect(JSON.parse(exported.stdout)).toMatchObject({ records: expected.length });
      const lines = gunzipSync(await readFile(bundle)).toString('utf8').trim().split('\n').map((line) => JSON.parse(line));
      expect(lines[0]).toMatchObject({ type: 'header', account: 'acme', from, to });
      expect(lines.filter((line) => line.type === 'record').map((line) => line.decision_id)).toEqual(expected);
      expect(lines.filter((line) => line.type === 'snapshot').length).toBeGreaterThan(0);
      expect(lines.filter((line) => line.type === 'ruleset').map((line) => line.version)).toEqual([1]);
      expect(lines[lines.length - 1]).toMatchObject({ type: 'signature', records: expected.length });
      // Every record line is the API body without the snapshot (sources and all).
      const { snapshot: _snapshot, ...body } = JSON.parse(bodies.get(ids[1] as string) as string);
      expect(lines.find((line) => line.decision_id === ids[1])).toEqual({ type: 'record', ...body });
      const ok = await cli('decisions', 'verify', bundle);
      expect(ok.stderr).toBe('');
      expect(JSON.parse(ok.stdout)).toMatchObject({ ok: true, account: 'acme', records: expected.length });
      const changed = lines.map((line) => (line.decision_id === ids[1] ? { ...line, verdict: { ...line.verdict, eligible: true } } : line));
      await writeFile(bundle, gzipSync(`${changed.map((line) => JSON.stringify(line)).join('\n')}\n`));
      const refused = await cli('decisions', 'verify', bundle);
      expect(refused.code).not.toBe(0);
      expect(refused.stderr.trim().split('\n')).toHaveLength(1);
      expect(refused.stderr).toContain('SHA-256');
    } finally {
      await rm(bundle, { force: true });
    }
  }, 120_000);
});
