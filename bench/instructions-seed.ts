// Seeds one tree's data for bench/instructions.ts with that tree's own code (its snapshot writer, codec, rule set
// and key store), so an older checkout reads back exactly what it would have written itself.
// Usage: node --import tsx bench/instructions-seed.ts TREE_ROOT REDIS_URL PREFIX CARRIERS
// Prints one JSON line: the API keys per account (`plain` always; `policy`, `override`, `override1000` when the
// tree has account policies and overrides).
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { Redis } from 'ioredis';

const [root = '.', redisUrl = '', prefix = '', carrierArg = '20000'] = process.argv.slice(2);
const CARRIERS = Number(carrierArg);
/** The first clean carrier (the cache-hot one) and the conditional ones (MCS-150 overdue: mcs150_outdated). */
const FIRST_MC = 100_000;
const REVIEW_MC = 900_000;
const REVIEW_CARRIERS = 1000;

// The tree's own modules, typed by the little this script uses: it must run against checkouts older than itself,
// so it cannot import their types.
interface TreeKeyAdmin {
  issue?(grant: Record<string, unknown>): Promise<{ key: string }>;
  save(record: Record<string, unknown>): Promise<void>;
}
interface TreeWriter {
  begin(nowMs: number): Promise<void>;
  put(mc: string, carrier: unknown): Promise<void>;
  commit(meta: Record<string, unknown>): Promise<unknown>;
}
interface TreeTestApp {
  baseUrl: string;
  stop(): Promise<void>;
}
interface Tree {
  redisKeys(prefix: string): unknown;
  SnapshotWriter: new (redis: Redis, keys: unknown, version: string) => TreeWriter;
  newSnapshotVersion(nowMs: number): string;
  publishRuleSet(redis: Redis, keys: unknown, body: unknown): Promise<unknown>;
  DEFAULT_RULE_SET: unknown;
  SOURCE_NAMES: readonly string[];
  KeyAdmin: new (redis: Redis, keys: unknown) => TreeKeyAdmin;
  generateApiKey(): { id: string; secret: string; plaintext: string };
  hashSecret(secret: string): string;
  cleanCarrier(mc: string, overrides?: Record<string, unknown>): unknown;
  startTestApp(env: Record<string, string>): Promise<TreeTestApp>;
}
const modules = await Promise.all(['src/store/keys.ts', 'src/store/snapshot-writer.ts', 'src/store/rulesets.ts', 'src/core/ruleset.ts',
  'src/auth/key-store.ts', 'src/auth/api-key.ts', 'test/helpers/harness.ts'].map((path) => import(pathToFileURL(`${root}/${path}`).href)));
const tree = Object.assign({}, ...modules) as Tree;

const redis = new Redis(redisUrl);
const keys = tree.redisKeys(prefix);
const admin = new tree.KeyAdmin(redis, keys);

async function issue(account: string, scopes: string[], actor?: string): Promise<string> {
  const grant = { account, label: 'bench', scopes, rate_per_minute: 1_000_000_000, ...(actor ? { actor } : {}) };
  if (admin.issue) return (await admin.issue(grant)).key;
  // Trees before KeyAdmin.issue(): the same record, written the way they wrote it.
  const { id, secret, plaintext } = tree.generateApiKey();
  await admin.save({ ...grant, id, status: 'active', expires_at: null, created_at: new Date().toISOString(), secret_sha256: tree.hashSecret(secret) });
  return plaintext;
}

await tree.publishRuleSet(redis, keys, tree.DEFAULT_RULE_SET);
const writer = new tree.SnapshotWriter(redis, keys, tree.newSnapshotVersion(Date.now()));
await writer.begin(Date.now());
for (let mc = FIRST_MC; mc < FIRST_MC + CARRIERS; mc++) await writer.put(String(mc), tree.cleanCarrier(String(mc)));
for (let mc = REVIEW_MC; mc < REVIEW_MC + REVIEW_CARRIERS; mc++) await writer.put(String(mc), tree.cleanCarrier(String(mc), { mcs150_date: '2019-01-01' }));
const now = new Date().toISOString();
await writer.commit({
  data_as_of: now, created_at: now, carrier_count: CARRIERS + REVIEW_CARRIERS,
  sources: Object.fromEntries(tree.SOURCE_NAMES.map((source) => [source, { present: true, as_of: now, rows: CARRIERS }])),
});

const out: Record<string, string> = { plain: await issue('plain', ['eligibility']) };
// BENCH_SEED_FEATURES=0 seeds only the plain account, so trees with and without policies/overrides hold the same data.
const hasFeatures = process.env.BENCH_SEED_FEATURES !== '0' && existsSync(`${root}/src/policy/index.ts`) && existsSync(`${root}/src/overrides/index.ts`);
if (hasFeatures) {
  // Policies and overrides go through the tree's own API, on its own service started here (not measured).
  const t = await tree.startTestApp({ REDIS_URL: redisUrl, REDIS_PREFIX: prefix, STATE_POLL_MS: '100', REDIS_COMMAND_TIMEOUT_MS: '5000' });
  const call = async (method: string, path: string, key: string, body: unknown): Promise<Record<string, unknown>> => {
    const response = await fetch(`${t.baseUrl}${path}`, { method, headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return JSON.parse(text) as Record<string, unknown>;
  };
  // On a loaded machine a Redis reply can still miss the service's command timeout now and then (a 503, or a
  // verdict degraded to backend_unavailable that no override may cover): such a request is sent again.
  let retries = 0;
  const retried = async <T>(attempt: () => Promise<T>): Promise<T> => {
    for (let tries = 0; ; tries++) {
      try {
        return await attempt();
      } catch (error) {
        if (tries >= 50 || !/backend_unavailable|: 503 /.test(String(error))) throw error;
        retries += 1;
        await new Promise((resume) => setTimeout(resume, 200));
      }
    }
  };
  try {
    // The service answers degraded until its first poll has read the snapshot, rule set and policies.
    for (let tries = 0; ; tries++) {
      const verdict = await call('POST', '/v1/eligibility', out.plain ?? '', { mc_number: String(REVIEW_MC) }).catch(() => null);
      if (verdict !== null && verdict.degraded === false) break;
      if (tries > 300) throw new Error(`the seeding service still answers degraded: ${JSON.stringify(verdict)}`);
      await new Promise((resume) => setTimeout(resume, 100));
    }
    for (const [account, count] of [['override', 1], ['override1000', REVIEW_CARRIERS]] as const) {
      out[account] = await issue(account, ['eligibility']);
      const ann = await issue(account, ['review'], 'Ann Lee');
      const bob = await issue(account, ['approve'], 'Bob Ray');
      for (let mc = REVIEW_MC; mc < REVIEW_MC + count; mc++) {
        const created = await retried(() => call('POST', '/v1/overrides', ann, {
          mc_number: String(mc), reasons: ['mcs150_outdated'], scope: { until_change: true }, reason_code: 'verified_with_carrier',
        }));
        await retried(() => call('POST', `/v1/overrides/${String(created.id)}/approve`, bob, { note: 'bench' }));
      }
    }
    out.policy = await issue('policy', ['eligibility', 'policy']);
    // Stricter than the floor, and still met by the clean carriers: the same verdict, decided under the policy.
    const policyKey = out.policy;
    await retried(() => call('PUT', '/v1/policy', policyKey, { insurance: { min_bipd_usd: 900_000 }, authority: { min_age_days: 180 } }));
  } finally {
    await t.stop();
  }
  if (retries > 0) process.stderr.write(`seed: ${retries} requests answered 503 or backend_unavailable and were sent again\n`);
}
redis.disconnect();
process.stdout.write(`${JSON.stringify(out)}\n`);
