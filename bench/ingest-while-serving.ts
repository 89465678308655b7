// Single checks while a large ingest runs: does the ingest's write pacing (INGEST_WRITE_BATCH, INGEST_WRITE_RATE)
// keep checks fast and never degraded? Issue 50's goal: at 500 checks/s, p99 < 50 ms and no degraded answer while
// a 2M-carrier ingest runs.
//
//   node --import tsx bench/ingest-while-serving.ts [--carriers 2000000] [--rate 500] [--idle-seconds 10]
//        [--paced-batch 250 --paced-rate 20000] [--phases idle,unpaced,paced]      (npm run bench:ingest-serving)
//
// A private redis-server on a free port (nothing shared is touched). Synthetic files in the real layouts are
// generated once into .bench-out/synthetic-<N> (as bench/ingest-bench.ts). The serving snapshot is N clean
// carriers (the synthetic MC numbers, written directly, every source present and fresh), so checks read real
// records. The service is what production starts (bench/serve.ts: startApp, ROLE=api) in its own process.
// Checks of random MC numbers among the N go out at a fixed rate (node:http, keep-alive) from this process and
// are timed from their send. Phases, one after the other:
//   (warm-up, 5 s of load, not reported)
//   idle     the load alone for --idle-seconds
//   unpaced  the real CLI ingest of the N carriers with INGEST_WRITE_BATCH=1000 INGEST_WRITE_RATE=0 (the writer
//            before pacing), the load running until it exits (its flip and sweep included)
//   paced    the same ingest with --paced-batch / --paced-rate (default: the config defaults)
// Per phase: checks answered, p50 / p99 / max latency (ms), degraded answers (`"degraded":true`), failures, the
// ingest's wall time and the 1-minute load average at its end. Writes .bench-out/ingest-while-serving.json and
// prints a markdown table. The machine is shared: compare phases of one run, and read the load average.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { createServer } from 'node:net';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { KeyAdmin } from '../src/auth/key-store.js';
import { loadConfig } from '../src/config.js';
import { DEFAULT_RULE_SET, SOURCE_NAMES } from '../src/core/ruleset.js';
import { writeSyntheticFiles } from '../src/ingest/synthetic.js';
import { redisKeys } from '../src/store/keys.js';
import { publishRuleSet } from '../src/store/rulesets.js';
import { newSnapshotVersion, SnapshotWriter } from '../src/store/snapshot-writer.js';
import { cleanCarrier } from '../test/helpers/harness.js';

const { values } = parseArgs({ options: {
  carriers: { type: 'string', default: '2000000' }, rate: { type: 'string', default: '500' },
  'idle-seconds': { type: 'string', default: '10' }, 'paced-batch': { type: 'string' }, 'paced-rate': { type: 'string' },
  phases: { type: 'string', default: 'idle,unpaced,paced' },
} });
const N = Number(values.carriers);
const RATE = Number(values.rate);
const defaults = loadConfig({});
const PACED = {
  batch: Number(values['paced-batch'] ?? defaults.INGEST_WRITE_BATCH), rate: Number(values['paced-rate'] ?? defaults.INGEST_WRITE_RATE),
};
const dir = `.bench-out/synthetic-${N}`;
const prefix = 'bench:';
const keys = redisKeys(prefix);

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

const redisPort = await freePort();
const redisServer = spawn('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
const redisUrl = `redis://127.0.0.1:${redisPort}`;
for (let i = 0; ; i++) {
  const probe = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  probe.on('error', () => undefined);
  try { await probe.connect(); probe.disconnect(); break; } catch (error) {
    probe.disconnect();
    if (i > 100) throw error;
    await new Promise((r) => setTimeout(r, 50));
  }
}
const redis = new Redis(redisUrl);

if (!existsSync(`${dir}/census_az4n-8mr2.csv`)) {
  process.stderr.write(`generating ${N} synthetic carriers into ${dir}…\n`);
  await mkdir(dir, { recursive: true });
  await writeSyntheticFiles(dir, N);
}

// The serving snapshot: N clean carriers under the synthetic MC numbers, every source present and fresh.
process.stderr.write(`writing the serving snapshot (${N} carriers)…\n`);
const version = newSnapshotVersion(Date.now());
const writer = new SnapshotWriter(redis, keys, version);
await writer.begin(Date.now());
for (let i = 0; i < N; i++) {
  const mc = String(1_000_000 + i);
  await writer.put(mc, cleanCarrier(mc, { dot: String(3_000_000 + i) }));
}
const now = new Date().toISOString();
await writer.commit({
  data_as_of: now, created_at: now, carrier_count: N,
  sources: Object.fromEntries(SOURCE_NAMES.map((name) => [name, { present: true, as_of: now, rows: 0 }])),
});
// The synthetic files' content dates (OOS orders, SAM records) are weeks old: the bench's rule set lets every
// source be a year old, so verdicts after the flip are real verdicts, not data_stale.
await publishRuleSet(redis, keys, { ...DEFAULT_RULE_SET, sources: { ...DEFAULT_RULE_SET.sources, max_age_days: Object.fromEntries(SOURCE_NAMES.map((name) => [name, 365])) } });
const { key: apiKey } = await new KeyAdmin(redis, keys).issue({ account: 'bench', label: 'bench', scopes: ['eligibility'], rate_per_minute: 1_000_000_000 });

const serviceEnv = { ...process.env, MAX_DATA_AGE_SECONDS: String(365 * 86_400), REDIS_URL: redisUrl, REDIS_PREFIX: prefix, PORT: '0', HOST: '127.0.0.1', ROLE: 'api', LOG_LEVEL: 'warn' };
const service = spawn(process.execPath, ['--import', 'tsx', 'bench/serve.ts'], { env: serviceEnv, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
const port = await new Promise<number>((resolve) => service.on('message', (message: { port?: number }) => { if (message.port) resolve(message.port); }));

interface PhaseResult {
  phase: string; checks: number; p50_ms: number; p99_ms: number; max_ms: number; degraded: number; degraded_reasons: Record<string, number>; failed: number;
  /** When each degraded answer was sent, seconds into the phase (what the ingest was doing then: its wall time). */
  degraded_at_s: number[];
  ingest_seconds: number | null; ingest_exit: number | null; load_1m_end: number;
}

const agent = new Agent({ keepAlive: true, maxSockets: 64 });

/** Checks at RATE per second until `until` resolves; latencies from each send. */
async function load(until: Promise<unknown>): Promise<Run> {
  const latencies: number[] = [];
  const degradedAt: number[] = [];
  const why: Record<string, number> = {};
  let degraded = 0;
  let failed = 0;
  let sent = 0;
  let open = 0;
  const started = performance.now();
  const check = () => {
    const body = JSON.stringify({ mc_number: String(1_000_000 + Math.floor(Math.random() * N)) });
    const at = performance.now();
    open++;
    const req = request({ host: '127.0.0.1', port, path: '/v1/eligibility', method: 'POST', agent, headers: {
      'x-api-key': apiKey, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        open--;
        latencies.push(performance.now() - at);
        const text = Buffer.concat(chunks).toString();
        if (res.statusCode !== 200) failed++;
        else if (text.includes('"degraded":true')) {
          degraded++;
          degradedAt.push(Number(((at - started) / 1000).toFixed(1)));
          const reasons = /"reasons":\[([^\]]*)\]/.exec(text)?.[1] ?? '?';
          why[reasons] = (why[reasons] ?? 0) + 1;
        }
      });
    });
    req.on('error', () => { open--; failed++; });
    req.end(body);
  };
  let done = false;
  void until.finally(() => { done = true; });
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      if (done) { clearInterval(timer); resolve(); return; }
      const due = Math.floor(((performance.now() - started) / 1000) * RATE);
      while (sent < due) { sent++; check(); }
    }, 2);
  });
  for (let i = 0; i < 500 && open > 0; i++) await new Promise((r) => setTimeout(r, 10));
  return { latencies, degraded, failed, why, degradedAt };
}

interface Run { latencies: number[]; degraded: number; failed: number; why: Record<string, number>; degradedAt: number[] }

function summarise(phase: string, run: Run, ingest: { seconds: number; exit: number | null } | null): PhaseResult {
  const sorted = [...run.latencies].sort((a, b) => a - b);
  const at = (q: number) => Number((sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0).toFixed(1));
  return {
    phase, checks: sorted.length, p50_ms: at(0.5), p99_ms: at(0.99), max_ms: Number((sorted[sorted.length - 1] ?? 0).toFixed(1)),
    degraded: run.degraded, degraded_reasons: run.why, degraded_at_s: run.degradedAt, failed: run.failed, ingest_seconds: ingest ? Number(ingest.seconds.toFixed(1)) : null,
    ingest_exit: ingest?.exit ?? null, load_1m_end: Number((loadavg()[0] ?? 0).toFixed(2)),
  };
}

function ingestChild(env: Record<string, string>): ChildProcess {
  const today = new Date().toISOString().slice(0, 10);
  return spawn(process.execPath, ['--max-old-space-size=384', '--import', 'tsx', 'src/cli/main.ts', 'ingest',
    '--census', `${dir}/census_az4n-8mr2.csv`, '--authority', `${dir}/li_carrier_legacy.txt`, '--insurance', `${dir}/li_actpendinsur_legacy.txt`,
    '--insurance-history', `${dir}/li_inshist_legacy.txt`, '--revocations', `${dir}/li_revocation_legacy.csv`, '--oos', `${dir}/oos_p2mt-9ige.csv`,
    '--sam', `${dir}/SAM_Exclusions_Public_V2.csv`, '--dnu', `${dir}/do_not_use.csv`, '--ofac-sdn', `${dir}/sdn.csv`, '--ofac-alt', `${dir}/alt.csv`,
    '--as-of-source', `authority=${today},insurance_history=${today},ofac_sdn=${today}`, '--force', '--as-of', 'now'],
  { env: { ...process.env, REDIS_URL: redisUrl, REDIS_PREFIX: prefix, ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
}

async function ingestPhase(phase: string, env: Record<string, string>): Promise<PhaseResult> {
  process.stderr.write(`${phase}: ingest of ${N} carriers under ${RATE} checks/s…\n`);
  const started = performance.now();
  const child = ingestChild(env);
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const run = await load(exited);
  return summarise(phase, run, { seconds: (performance.now() - started) / 1000, exit: await exited });
}

const results: PhaseResult[] = [];
const phases = values.phases.split(',');
// Warm-up, not reported: the service's first seconds (JIT, connections, the carrier cache filling).
await load(new Promise((r) => setTimeout(r, 5000)));
if (phases.includes('idle')) {
  process.stderr.write(`idle: ${RATE} checks/s for ${values['idle-seconds']} s…\n`);
  results.push(summarise('idle', await load(new Promise((r) => setTimeout(r, Number(values['idle-seconds']) * 1000))), null));
}
if (phases.includes('unpaced')) results.push(await ingestPhase('unpaced', { INGEST_WRITE_BATCH: '1000', INGEST_WRITE_RATE: '0' }));
if (phases.includes('paced')) results.push(await ingestPhase(`paced (batch ${PACED.batch}, ${PACED.rate}/s)`, { INGEST_WRITE_BATCH: String(PACED.batch), INGEST_WRITE_RATE: String(PACED.rate) }));

// Bytes per carrier of the version now serving (the last ingest's): MEMORY USAGE of its buckets, meta and bitmap.
const serving = await redis.get(keys.snapshotCurrent);
let versionBytes = 0;
if (serving) {
  for (let start = 0; start < 16_384; start += 512) {
    const pipeline = redis.pipeline();
    for (let bucket = start; bucket < start + 512; bucket++) pipeline.memory('USAGE', keys.carrierBucket(serving, bucket), 'SAMPLES', '0');
    for (const [, size] of (await pipeline.exec()) ?? []) versionBytes += Number(size ?? 0);
  }
  versionBytes += Number(await redis.memory('USAGE', keys.snapshotMeta(serving)) ?? 0) + Number(await redis.memory('USAGE', keys.snapshotNotEligible(serving)) ?? 0);
}
const bytesPerCarrier = Number((versionBytes / N).toFixed(1));

const table = [
  `${N.toLocaleString('en-US')} carriers, ${RATE} checks/s, ${new Date().toISOString()}; the last ingest's version: ${bytesPerCarrier} B per carrier (MEMORY USAGE)`,
  '| phase | checks | p50 ms | p99 ms | max ms | degraded | failed | ingest s | load 1m |',
  '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  ...results.map((r) => `| ${r.phase} | ${r.checks} | ${r.p50_ms} | ${r.p99_ms} | ${r.max_ms} | ${r.degraded} | ${r.failed} | ${r.ingest_seconds ?? '—'}${r.ingest_exit ? ` (exit ${r.ingest_exit})` : ''} | ${r.load_1m_end} |`),
].join('\n');
process.stdout.write(`${table}\n`);
await writeFile('.bench-out/ingest-while-serving.json', `${JSON.stringify({ carriers: N, rate: RATE, paced: PACED, version_bytes_per_carrier: bytesPerCarrier, results }, null, 2)}\n`);
service.send('stop');
await new Promise((resolve) => { service.once('exit', resolve); setTimeout(resolve, 5000); });
service.kill();
agent.destroy();
redis.disconnect();
redisServer.kill('SIGKILL');
