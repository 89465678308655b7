// Check latency while an operator imports a large do-not-use list (`dnu import`, 20,000 rows by default).
// Three API replicas run in this process (ROLE=api, startApp, default STATE_POLL_MS; each polls and holds its own
// copy of the list, as separate pods would); 6 lanes fire single checks back to back, spread over the replicas,
// for 3 s before the import (baseline), during it, and for 1 s after; the import is the real CLI in a child
// process. Prints one JSON line: import wall time, p50/p99/max check latency per phase and the event-loop delay.
//
//   node --import tsx bench/dnu-import-latency.ts [rows, default 20000] [replicas, default 3]
//
// Uses REDIS_URL (default redis://127.0.0.1:6379) under a random prefix, removed afterwards. Only APIs that
// predate the DNU change log are used, so the same file measures the old code in a checkout of it.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { startApp } from '../src/app.js';
import { generateApiKey, hashSecret } from '../src/auth/api-key.js';
import { KeyAdmin } from '../src/auth/key-store.js';
import { loadConfig } from '../src/config.js';
import type { CarrierRecord } from '../src/core/carrier.js';
import { DEFAULT_RULE_SET } from '../src/core/ruleset.js';
import { createLogger } from '../src/log.js';
import { createRedis } from '../src/redis/connection.js';
import { deleteByPrefix } from '../src/redis/delete-by-prefix.js';
import { redisKeys } from '../src/store/keys.js';
import { publishRuleSet } from '../src/store/rulesets.js';
import { newSnapshotVersion, SnapshotWriter } from '../src/store/snapshot-writer.js';

const ROWS = Number(process.argv[2] ?? 20_000);
const REPLICAS = Number(process.argv[3] ?? 3);
const prefix = `bench:${randomBytes(4).toString('hex')}:`;
const config = loadConfig({ ...process.env, REDIS_PREFIX: prefix, PORT: '0', HOST: '127.0.0.1', ROLE: 'api', LOG_LEVEL: 'silent' });
const redis = createRedis(config.REDIS_URL, 'background');
const keys = redisKeys(prefix);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const recent = new Date(Date.now() - 100 * 86_400_000).toISOString().slice(0, 10);
const carrier: CarrierRecord = {
  mc: '100001', dot: '3100001', legal_name: 'CARRIER 100001 LLC', dba_name: null, usdot_status: 'A',
  authority: { status: 'active', granted_on: '2015-03-01', revocation_pending_on: null, revoked_on: null },
  insurance: { bipd_on_file_usd: 1_000_000, bipd_required_usd: 750_000, cancellation_effective_on: null },
  hazmat: false, safety_rating: 'S', mcs150_date: recent, oos_order: null, hits: [],
};

function stats(samples: number[]): { n: number; p50: number; p99: number; max: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => Math.round((sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0) * 10) / 10;
  return { n: sorted.length, p50: at(0.5), p99: at(0.99), max: at(1) };
}

const apps = await Promise.all(Array.from({ length: REPLICAS }, () => startApp(config, createLogger('silent', 'bench'))));
const dir = await mkdtemp(join(tmpdir(), 'ce-dnu-bench-'));
try {
  const { id, secret, plaintext } = generateApiKey();
  await new KeyAdmin(redis, keys).save({
    id, account: 'bench', label: 'bench', scopes: ['eligibility'], status: 'active', expires_at: null,
    rate_per_minute: 10_000_000, created_at: new Date().toISOString(), secret_sha256: hashSecret(secret),
  });
  await publishRuleSet(redis, keys, DEFAULT_RULE_SET);
  const writer = new SnapshotWriter(redis, keys, newSnapshotVersion(Date.now()));
  await writer.begin(Date.now());
  await writer.put(carrier.mc, carrier);
  const now = new Date().toISOString();
  const present = { present: true, as_of: now, rows: 1 };
  await writer.commit({
    data_as_of: now, created_at: now, carrier_count: 1,
    sources: { census: present, authority: present, insurance: present, oos: present, ofac_sdn: present, sam: present },
  });
  const file = join(dir, 'dnu.csv');
  const lines = ['mc_number,reason,added_at,expires_at'];
  for (let i = 0; i < ROWS; i++) lines.push(`${500_000 + i},bench import,2026-01-01,`);
  await writeFile(file, `${lines.join('\n')}\n`);
  await sleep(1000);

  const urls = apps.map((app) => `http://127.0.0.1:${app.http?.port ?? 0}/v1/eligibility`);
  const samples: Array<{ at: number; ms: number }> = [];
  let running = true;
  const lanes = Array.from({ length: 6 }, async (_, lane) => {
    const url = urls[lane % urls.length] as string;
    while (running) {
      const started = performance.now();
      const response = await fetch(url, { method: 'POST', headers: { 'x-api-key': plaintext }, body: '{"mc_number":"100001"}' });
      await response.arrayBuffer();
      samples.push({ at: Date.now(), ms: performance.now() - started });
    }
  });
  await sleep(3000);
  // The replica's event loop during the import: a whole-list reload blocks it, whatever the client sees.
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const importStart = Date.now();
  const exitCode = await new Promise<number | null>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'dnu', 'import', file],
      { env: { ...process.env, REDIS_PREFIX: prefix }, stdio: ['ignore', 'ignore', 'inherit'] });
    child.once('exit', resolve);
  });
  const importEnd = Date.now();
  await sleep(1000);
  loop.disable();
  running = false;
  await Promise.all(lanes);
  const before = samples.filter((s) => s.at < importStart).map((s) => s.ms);
  const during = samples.filter((s) => s.at >= importStart && s.at <= importEnd + 1000).map((s) => s.ms);
  process.stdout.write(`${JSON.stringify({
    rows: ROWS, import_exit: exitCode, import_ms: importEnd - importStart,
    rows_on_replicas: apps.map((app) => app.parts.state.doNotUse.size), replicas: REPLICAS, before: stats(before), during_import: stats(during),
    event_loop_delay_ms: { p99: Math.round(loop.percentile(99) / 1e5) / 10, max: Math.round(loop.max / 1e5) / 10 },
  })}\n`);
} finally {
  await Promise.all(apps.map((app) => app.stop()));
  await deleteByPrefix(redis, prefix);
  redis.disconnect();
  await rm(dir, { recursive: true, force: true });
}
