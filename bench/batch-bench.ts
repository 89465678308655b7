// Batch benchmark: a 5000-row job with an unlimited budget, timed from POST /v1/batch to the report fully
// downloaded, with one and with two worker processes. The API runs in this process (ROLE=api, exactly what
// startApp builds); workers are separate `src/main.ts` processes (ROLE=worker), started before timing.
//
//   node --import tsx bench/batch-bench.ts [runs per setting, default 7]
//
// Uses REDIS_URL (default redis://127.0.0.1:6379) under a random prefix, removed afterwards.
import { deleteByPrefix } from '../src/redis/delete-by-prefix.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpus } from 'node:os';
import { startApp } from '../src/app.js';
import { KeyAdmin } from '../src/auth/key-store.js';
import { loadConfig } from '../src/config.js';
import type { CarrierRecord } from '../src/core/carrier.js';
import { DEFAULT_RULE_SET } from '../src/core/ruleset.js';
import { createLogger } from '../src/log.js';
import { createRedis } from '../src/redis/connection.js';
import { redisKeys } from '../src/store/keys.js';
import { publishRuleSet } from '../src/store/rulesets.js';
import { newSnapshotVersion, SnapshotWriter } from '../src/store/snapshot-writer.js';

const RUNS = Number(process.argv[2] ?? 7);
const ROWS = 5000;
const prefix = `bench:${randomBytes(4).toString('hex')}:`;
const config = loadConfig({ ...process.env, REDIS_PREFIX: prefix, PORT: '0', HOST: '127.0.0.1', ROLE: 'api', LOG_LEVEL: 'silent' });
const redis = createRedis(config.REDIS_URL, 'background');
const keys = redisKeys(prefix);

function carrier(mc: string): CarrierRecord {
  return {
    mc, dot: String(1_000_000 + Number(mc)), legal_name: `CARRIER ${mc} LLC`, dba_name: null, usdot_status: 'A',
    authority: { status: 'active', granted_on: '2015-03-01', revocation_pending_on: null, revoked_on: null },
    insurance: { bipd_on_file_usd: 1_000_000, bipd_required_usd: 750_000, cancellation_effective_on: null },
    hazmat: false, safety_rating: Number(mc) % 5 === 0 ? 'C' : 'S', mcs150_date: new Date(Date.now() - 100 * 86_400_000).toISOString().slice(0, 10),
    oos_order: null, hits: [],
  };
}

async function arrange(): Promise<void> {
  await publishRuleSet(redis, keys, DEFAULT_RULE_SET);
  const writer = new SnapshotWriter(redis, keys, newSnapshotVersion(Date.now()));
  await writer.begin(Date.now());
  for (let mc = 500_000; mc < 500_000 + ROWS; mc++) await writer.put(String(mc), carrier(String(mc)));
  const now = new Date().toISOString();
  await writer.commit({
    data_as_of: now, created_at: now, carrier_count: ROWS,
    sources: { census: { present: true, as_of: now, rows: ROWS }, authority: { present: true, as_of: now, rows: ROWS } },
  });
}

async function newKey(): Promise<string> {
  const { key } = await new KeyAdmin(redis, keys).issue({ account: 'bench', label: 'batch-bench', scopes: ['batch'], rate_per_minute: 100_000_000 });
  return key;
}

function startWorker(): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: { ...process.env, ROLE: 'worker', PORT: '0', HOST: '127.0.0.1', REDIS_PREFIX: prefix, REDIS_URL: config.REDIS_URL, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve) => {
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('batch worker started')) resolve(child);
    });
  });
}

async function oneJob(baseUrl: string, key: string): Promise<{ totalMs: number; screenedMs: number }> {
  const items = Array.from({ length: ROWS }, (_, index) => ({ mc: String(500_000 + index), ref: `row-${index + 1}`, dot: '' }));
  const started = performance.now();
  const submitted = await fetch(`${baseUrl}/v1/batch`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify({ items }) });
  if (submitted.status !== 202) throw new Error(`submit answered ${submitted.status}: ${await submitted.text()}`);
  const { poll, report } = await submitted.json() as { poll: string; report: string };
  for (;;) {
    const status = await (await fetch(`${baseUrl}${poll}`, { headers: { 'x-api-key': key } })).json() as { status: string };
    if (status.status === 'completed') break;
    if (status.status !== 'queued' && status.status !== 'running') throw new Error(`job ended ${status.status}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const screenedMs = performance.now() - started;
  const csv = await (await fetch(`${baseUrl}${report}`, { headers: { 'x-api-key': key } })).text();
  const totalMs = performance.now() - started;
  const lines = csv.split('\r\n').filter(Boolean).length;
  if (lines !== ROWS + 1) throw new Error(`report has ${lines} lines`);
  return { totalMs, screenedMs };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

async function main(): Promise<void> {
  await arrange();
  const app = await startApp(config, createLogger('silent', 'bench'));
  const baseUrl = `http://127.0.0.1:${app.http?.port ?? 0}`;
  const workers: ChildProcess[] = [];
  const results: string[] = [];
  try {
    for (const count of [1, 2]) {
      while (workers.length < count) workers.push(await startWorker());
      const key = await newKey();
      await oneJob(baseUrl, key); // warm-up: JIT, connections, script cache
      const runs: { totalMs: number; screenedMs: number }[] = [];
      for (let run = 0; run < RUNS; run++) runs.push(await oneJob(baseUrl, key));
      const totals = runs.map((run) => run.totalMs);
      results.push(`${count} worker${count > 1 ? 's' : ' '}: submit→report downloaded median ${median(totals).toFixed(0)} ms `
        + `(min ${Math.min(...totals).toFixed(0)}, max ${Math.max(...totals).toFixed(0)}); submit→completed median ${median(runs.map((run) => run.screenedMs)).toFixed(0)} ms; ${RUNS} runs`);
      process.stdout.write(`${results[results.length - 1]}\n`);
    }
  } finally {
    for (const worker of workers) worker.kill('SIGTERM');
    await app.stop();
    await deleteByPrefix(redis, prefix);
    redis.disconnect();
  }
  process.stdout.write(`machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, node ${process.version}\n`);
}

await main();
