// The continuous archive on S3-compatible object storage, against a real S3 server started here (s3rver, pure
// JS, speaking the S3 REST API the AWS SDK v3 uses: signed PUT/GET with Range/ListObjectsV2/DELETE). The store
// is chosen by the config (DECISION_ARCHIVE_S3_BUCKET/PREFIX/ENDPOINT, credentials and region from the usual
// AWS_* environment) exactly as in production: records are archived into the bucket under the prefix and
// evicted from Redis, GET /v1/decisions/{id} and the search answer from the bucket with the body Redis gave and
// the same cross-account 404, the chain verifies from the bucket, and one changed object fails verification.
// Not covered (s3rver has neither): Object Lock retention and If-None-Match on PUT (the store checks for the
// object first; the archiver's lease keeps writers apart).
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { archiveStore, buildArchiver, secondOf, verifyArchive } from '../../src/decisions/index.js';
import { manifestKey } from '../../src/decisions/archive-format.js';
import { idMillis } from '../../src/decisions/record-codec.js';
import { cleanCarrier, startTestApp, type TestApp } from '../helpers/harness.js';

const BUCKET = 'decision-archive';
const PREFIX = 'ce/archive/';
const AWS_ENV = { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER', AWS_REGION: 'us-east-1' };
const { privateKey, publicKey } = generateKeyPairSync('ed25519');

let server: S3rver;
let serverDir: string;
let endpoint: string;
let t: TestApp;
let key: string;
let otherKey: string;
let raw: S3Client;
const ids: string[] = [];
const bodies = new Map<string, string>();
const saved = new Map<string, string | undefined>();

beforeAll(async () => {
  for (const [name, value] of Object.entries(AWS_ENV)) {
    saved.set(name, process.env[name]);
    process.env[name] = value;
  }
  serverDir = await mkdtemp(join(tmpdir(), 's3rver-'));
  server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: serverDir, configureBuckets: [{ name: BUCKET, configs: [] }] });
  endpoint = `http://127.0.0.1:${(await server.run()).port}`;
  raw = new S3Client({ endpoint, forcePathStyle: true });
  t = await startTestApp({
    DECISION_ARCHIVE_S3_BUCKET: BUCKET, DECISION_ARCHIVE_S3_PREFIX: PREFIX, DECISION_ARCHIVE_S3_ENDPOINT: endpoint,
    DECISION_SIGNING_KEY: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(), DECISION_ARCHIVER: 'off',
  });
  await t.publishRules();
  await t.writeSnapshot([cleanCarrier('100001'), cleanCarrier('100002', { safety_rating: 'U' })]);
  ({ key } = await t.createKey());
  ({ key: otherKey } = await t.createKey({ account: 'other-broker' }));
  await t.app.parts.state.poll();
  for (const mc of ['100001', '100002', '100001']) {
    ids.push((await (await t.post('/v1/eligibility', { mc_number: mc }, { 'x-api-key': key })).json()).decision_id);
  }
  for (const id of ids) bodies.set(id, await (await t.get(`/v1/decisions/${id}`, { 'x-api-key': key })).text());
}, 60_000);

afterAll(async () => {
  await t?.stop();
  raw?.destroy();
  await server?.close();
  await rm(serverDir, { recursive: true, force: true });
  for (const [name, value] of saved) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

describe('decision archive on S3-compatible storage', () => {
  it('archives into the bucket under the prefix, then evicts from Redis', async () => {
    const archiver = buildArchiver(t.config, t.redis, t.keys);
    const pass = await archiver.archiveUntil(secondOf(Date.now()) + 1);
    expect(pass.records).toBe(ids.length);
    // The last seconds are never evicted (writes in flight): wait them out, as `decisions archive` does.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    await archiver.evictBefore(secondOf(Date.now()));
    for (const id of ids) expect(await t.redis.hlen(t.keys.decisionBucket(Math.floor(idMillis(id) / 1000)))).toBe(0);
    const listed = await raw.send(new ListObjectsV2Command({ Bucket: BUCKET }));
    const objectKeys = (listed.Contents ?? []).map((item) => item.Key ?? '');
    expect(objectKeys).toContain(`${PREFIX}${manifestKey(1)}`);
    expect(objectKeys.every((item) => item.startsWith(PREFIX))).toBe(true);
    expect(objectKeys.some((item) => item.endsWith('.ndjson.br'))).toBe(true);
    // A manifest is never replaced.
    expect(await archiveStore(t.config).put(manifestKey(1), Buffer.from('{}'), { ifAbsent: true })).toBe(false);
  }, 60_000);

  it('answers by id and by search from the bucket with the body Redis gave, and the same 404 across accounts', async () => {
    for (const id of ids) {
      const response = await t.get(`/v1/decisions/${id}`, { 'x-api-key': key });
      expect(response.status).toBe(200);
      expect(await response.text()).toBe(bodies.get(id));
    }
    const foreign = await t.get(`/v1/decisions/${ids[0]}`, { 'x-api-key': otherKey });
    const unknown = await t.get(`/v1/decisions/${(ids[0] as string).slice(0, 24)}000000000000`, { 'x-api-key': otherKey });
    expect([foreign.status, unknown.status]).toEqual([404, 404]);
    const strip = (body: Record<string, unknown>) => ({ ...body, instance: undefined, request_id: undefined });
    expect(strip(await foreign.json())).toEqual(strip(await unknown.json()));
    const query = new URLSearchParams({
      mc_number: '100001', from: new Date(idMillis(ids[0] as string) - 60_000).toISOString(), to: new Date(Date.now() + 60_000).toISOString(),
    });
    const page = await (await t.get(`/v1/decisions?${query.toString()}`, { 'x-api-key': key })).json() as { items: Array<{ decision_id: string }> };
    expect(page.items.map((item) => item.decision_id)).toEqual([ids[0], ids[2]]);
  }, 30_000);

  it('verifies the chain from the bucket, and names the object that was changed', async () => {
    const store = archiveStore(t.config);
    const ok = await verifyArchive(store, publicKey, { nowMs: Date.now(), archiveYears: 10 });
    expect(ok).toMatchObject({ ok: true, records: ids.length, problem: null });
    const dataKey = (await store.list('hours/')).find((item) => item.endsWith('.ndjson.br')) as string;
    const object = await raw.send(new GetObjectCommand({ Bucket: BUCKET, Key: `${PREFIX}${dataKey}` }));
    const bytes = Buffer.from(await (object.Body as NonNullable<typeof object.Body>).transformToByteArray());
    bytes[0] = (bytes[0] as number) ^ 1;
    await raw.send(new PutObjectCommand({ Bucket: BUCKET, Key: `${PREFIX}${dataKey}`, Body: bytes }));
    const changed = await verifyArchive(store, publicKey, { nowMs: Date.now(), archiveYears: 10 });
    expect(changed.ok).toBe(false);
    expect(changed.problem?.file).toBe(dataKey);
  }, 30_000);
});
