// HTTP load bench: POST /v1/eligibility on local Redis (cache-hot and cache-cold mixes) against a raw
// uWebSockets.js server answering fixed JSON, measured in the same run so the result is a ratio. The service
// and the raw server each run in their own child process pinned to CPU 0; the generators (autocannon in this
// process, wrk when installed) run on CPU 1. A last step checks that the budget stayed exact under load.
// Knobs (env): BENCH_DURATION (s, 10), BENCH_CONNECTIONS (100), BENCH_REPEAT (1; the median is reported),
// BENCH_CARRIERS (100000), BENCH_COLD_RANGE (1000000), BENCH_LOG_LEVEL (info), BENCH_SCENARIOS
// (raw,hot,cold,exact), BENCH_TOOLS (autocannon,wrk), BENCH_PIN (1), BENCH_CPU_PROF (0: profile the service).
import { deleteByPrefix } from '../src/redis/delete-by-prefix.js';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, openSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import autocannon from 'autocannon';
import type { Redis } from 'ioredis';
import { generateApiKey, hashSecret } from '../src/auth/api-key.js';
import { KeyAdmin } from '../src/auth/key-store.js';
import { DEFAULT_RULE_SET } from '../src/core/ruleset.js';
import { createRedis } from '../src/redis/connection.js';
import { redisKeys, type RedisKeys } from '../src/store/keys.js';
import { publishRuleSet } from '../src/store/rulesets.js';
import { newSnapshotVersion, SnapshotWriter } from '../src/store/snapshot-writer.js';
import { cleanCarrier } from '../test/helpers/harness.js';

const env = process.env;
const DURATION = Number(env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(env.BENCH_CONNECTIONS ?? 100);
const REPEAT = Math.max(1, Number(env.BENCH_REPEAT ?? 1));
const CARRIERS = Number(env.BENCH_CARRIERS ?? 100_000);
const COLD_RANGE = Number(env.BENCH_COLD_RANGE ?? 1_000_000);
const LOG_LEVEL = env.BENCH_LOG_LEVEL ?? 'info';
const SCENARIOS = new Set((env.BENCH_SCENARIOS ?? 'raw,hot,cold,exact').split(','));
const HOT_MC = '123456';
const EXACT_BUDGET = 2000;
const OUT_DIR = new URL('../.bench-out/', import.meta.url);
const REDIS_URL = env.REDIS_URL ?? 'redis://127.0.0.1:6379';

function hasCommand(name: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const PIN = env.BENCH_PIN !== '0' && availableParallelism() >= 2 && hasCommand('taskset');
const tools = new Set((env.BENCH_TOOLS ?? 'autocannon,wrk').split(','));
const WRK = tools.has('wrk') && hasCommand('wrk');

type Tool = 'autocannon' | 'wrk';

interface Measurement {
  scenario: string;
  tool: Tool;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
  /** Responses in the run (for per-request ratios). */
  requests: number;
  /** CPU time (user + system) the server process spent per response, in microseconds. */
  cpuMicrosPerRequest?: number;
  /** Commands the service's request-path Redis client sent per response (service runs only). */
  redisPerRequest?: Record<string, number>;
}

// ---------- children ----------

interface ChildStats {
  cpuMicros: number;
  commands: Record<string, number> | null;
}

interface Child {
  port: number;
  /** CPU time and Redis commands by name since the last call (the raw server has no Redis). */
  stats(): Promise<ChildStats>;
  stop(): Promise<void>;
}

const devNull = openSync('/dev/null', 'w');

/** Starts a bench entry in its own process (pinned to CPU 0) and waits for it to report its port. */
function startChild(script: string, childEnv: Record<string, string>, nodeArgs: string[] = []): Promise<Child> {
  const node = [process.execPath, ...nodeArgs, '--import', 'tsx', script];
  const [command, ...args] = PIN ? ['taskset', '-c', '0', ...node] : node;
  // stdout (the access log) goes to /dev/null: it still costs the service its serialisation and write(2),
  // as a pipe to the container runtime would, but not a reader in this process.
  const child: ChildProcess = spawn(command ?? process.execPath, args, {
    env: { ...env, ...childEnv }, stdio: ['ignore', devNull, 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${script} exited early (${code})`)));
    child.once('message', (message) => {
      const { port } = message as { port: number };
      resolve({
        port,
        stats: () => new Promise((answer) => {
          child.once('message', (reply) => answer(reply as ChildStats));
          child.send('stats');
        }),
        stop: () => new Promise<void>((done) => {
          const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
          child.removeAllListeners('exit');
          child.once('exit', () => {
            clearTimeout(timer);
            done();
          });
          child.send('stop');
        }),
      });
    });
  });
}

// ---------- load generators ----------

interface Load {
  path: string;
  apiKey: string | null;
  mode: 'hot' | 'cold';
}

async function runAutocannon(port: number, load: Load, duration: number): Promise<autocannon.Result> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (load.apiKey) headers['x-api-key'] = load.apiKey;
  const base = { url: `http://127.0.0.1:${port}`, connections: CONNECTIONS, duration };
  if (load.mode === 'hot') {
    return autocannon({ ...base, url: `${base.url}${load.path}`, method: 'POST', headers, body: JSON.stringify({ mc_number: HOT_MC }) });
  }
  return autocannon({
    ...base,
    requests: [{
      method: 'POST', path: load.path, headers,
      setupRequest: (request) => ({ ...request, body: `{"mc_number":"${1 + Math.floor(Math.random() * COLD_RANGE)}"}` }),
    }],
  });
}

function fromAutocannon(scenario: string, result: autocannon.Result): Measurement {
  return {
    scenario, tool: 'autocannon', requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50, p99Ms: result.latency.p99, non2xx: result.non2xx, errors: result.errors,
    requests: result.requests.total,
  };
}

function wrkMs(output: string, label: string): number {
  const match = new RegExp(`^\\s*${label}\\s+([\\d.]+)(us|ms|s)\\s*$`, 'm').exec(output);
  if (!match?.[1]) return Number.NaN;
  const value = Number(match[1]);
  return match[2] === 'us' ? value / 1000 : match[2] === 's' ? value * 1000 : value;
}

function runWrk(scenario: string, port: number, load: Load, duration: number): Promise<Measurement> {
  const wrkArgs = ['-t1', `-c${CONNECTIONS}`, `-d${duration}s`, '--latency', '-s', 'bench/wrk-eligibility.lua', `http://127.0.0.1:${port}${load.path}`];
  const [command, ...args] = PIN ? ['taskset', '-c', '1', 'wrk', ...wrkArgs] : ['wrk', ...wrkArgs];
  return new Promise((resolve, reject) => {
    const child = spawn(command ?? 'wrk', args, {
      env: { ...env, WRK_MODE: load.mode, WRK_MC: HOT_MC, WRK_RANGE: String(COLD_RANGE), WRK_API_KEY: load.apiKey ?? '' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.on('error', reject);
    child.on('exit', () => {
      const socketErrors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(output);
      resolve({
        scenario, tool: 'wrk',
        requestsPerSecond: Number(/Requests\/sec:\s+([\d.]+)/.exec(output)?.[1] ?? Number.NaN),
        p50Ms: wrkMs(output, '50%'), p99Ms: wrkMs(output, '99%'),
        non2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(output)?.[1] ?? 0),
        errors: socketErrors ? socketErrors.slice(1).reduce((sum, count) => sum + Number(count), 0) : 0,
        requests: Number(/(\d+) requests in/.exec(output)?.[1] ?? 0),
      });
    });
  });
}

const median = (runs: Measurement[]): Measurement => {
  const sorted = [...runs].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond);
  return sorted[Math.floor(sorted.length / 2)] as Measurement;
};

interface Target {
  scenario: string;
  child: Child;
  load: Load;
}

/** One measured run, with the server's CPU time and Redis commands over exactly that run. */
async function measureRun(target: Target, tool: Tool): Promise<Measurement> {
  const { child, load, scenario } = target;
  await child.stats();
  const measurement = tool === 'wrk'
    ? await runWrk(scenario, child.port, load, DURATION)
    : fromAutocannon(scenario, await runAutocannon(child.port, load, DURATION));
  const { cpuMicros, commands } = await child.stats();
  if (measurement.requests > 0) {
    measurement.cpuMicrosPerRequest = Math.round((cpuMicros / measurement.requests) * 10) / 10;
    if (commands) {
      measurement.redisPerRequest = Object.fromEntries(Object.entries(commands)
        .map(([name, count]) => [name, Math.round((count / measurement.requests) * 10_000) / 10_000]));
    }
  }
  process.stdout.write(`  ${scenario.padEnd(20)} ${tool.padEnd(10)} ${String(Math.round(measurement.requestsPerSecond)).padStart(7)} req/s`
    + `  p99 ${measurement.p99Ms.toFixed(2)} ms  ${measurement.cpuMicrosPerRequest ?? '?'} µs CPU/req\n`);
  return measurement;
}

/**
 * Warm-up (JIT, LRU, connections), then REPEAT rounds; each round runs every target with every tool, so the
 * raw baseline and the service see the same background load (this machine is shared). Median per pair.
 */
async function measureAll(targets: Target[]): Promise<Measurement[]> {
  for (const target of targets) await runAutocannon(target.child.port, target.load, 2);
  const runTools: Tool[] = [...(tools.has('autocannon') ? ['autocannon' as const] : []), ...(WRK ? ['wrk' as const] : [])];
  const runs = new Map<string, Measurement[]>();
  for (let round = 0; round < REPEAT; round += 1) {
    for (const tool of runTools) {
      for (const target of targets) {
        const key = `${target.scenario}\u0000${tool}`;
        runs.set(key, [...(runs.get(key) ?? []), await measureRun(target, tool)]);
      }
    }
  }
  return [...runs.values()].map(median);
}

// ---------- Redis fixtures ----------

async function seed(redis: Redis, keys: RedisKeys): Promise<{ hotKey: string; exactKey: string }> {
  await publishRuleSet(redis, keys, DEFAULT_RULE_SET);
  const writer = new SnapshotWriter(redis, keys, newSnapshotVersion(Date.now()));
  await writer.begin(Date.now());
  // MC numbers 1..CARRIERS exist; every 7th carries a hard stop, so verdicts are not all alike.
  for (let mc = 1; mc <= CARRIERS; mc += 1) {
    await writer.put(String(mc), cleanCarrier(String(mc), mc % 7 === 0 ? { safety_rating: 'U' } : {}));
  }
  const now = new Date().toISOString();
  await writer.commit({
    data_as_of: now, created_at: now, carrier_count: CARRIERS,
    sources: { census: { present: true, as_of: now, rows: CARRIERS }, authority: { present: true, as_of: now, rows: CARRIERS } },
  });
  const admin = new KeyAdmin(redis, keys);
  const issue = async (rate: number) => {
    const { id, secret, plaintext } = generateApiKey();
    await admin.save({
      id, account: 'bench', label: 'bench', scopes: ['eligibility'], status: 'active', expires_at: null,
      rate_per_minute: rate, created_at: now, secret_sha256: hashSecret(secret),
    });
    return plaintext;
  };
  return { hotKey: await issue(1_000_000_000), exactKey: await issue(EXACT_BUDGET) };
}

// ---------- main ----------

function redisCounts(row: Measurement): string {
  if (!row.redisPerRequest) return '';
  return Object.entries(row.redisPerRequest).map(([name, perRequest]) => `${name} ${perRequest}`).join(', ');
}

function printTable(rows: Measurement[]): void {
  const rawRate = (tool: Tool) => rows.find((row) => row.scenario === 'raw uWS fixed JSON' && row.tool === tool)?.requestsPerSecond;
  const lines = [
    '| scenario | tool | req/s | p50 ms | p99 ms | ratio to raw | server CPU µs/req | non-2xx | errors | Redis cmds per request |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---|',
    ...rows.map((row) => {
      const raw = rawRate(row.tool);
      const ratio = raw ? `${Math.round((row.requestsPerSecond / raw) * 100)}%` : 'n/a';
      return `| ${row.scenario} | ${row.tool} | ${Math.round(row.requestsPerSecond)} | ${row.p50Ms.toFixed(2)} | ${row.p99Ms.toFixed(2)} | ${ratio} | ${row.cpuMicrosPerRequest ?? ''} | ${row.non2xx} | ${row.errors} | ${redisCounts(row)} |`;
    }),
  ];
  process.stdout.write(`\n${lines.join('\n')}\n`);
}

async function main(): Promise<void> {
  if (PIN) execFileSync('taskset', ['-p', '-c', '1', String(process.pid)], { stdio: 'ignore' });
  const prefix = `bench:${randomBytes(5).toString('hex')}:`;
  const redis = createRedis(REDIS_URL, 'background');
  const keys = redisKeys(prefix);
  const rows: Measurement[] = [];
  let exact: { budget: number; admitted: number; limited: number; other: number; ok: boolean } | null = null;
  process.stdout.write(`bench: ${CONNECTIONS} connections, ${DURATION} s per run, ${REPEAT} run(s) per tool, `
    + `pinning ${PIN ? 'server→CPU0, generators→CPU1' : 'off'}, wrk ${WRK ? 'on' : 'off (not installed)'}, service LOG_LEVEL=${LOG_LEVEL}\n`);
  const children: Child[] = [];
  try {
    const targets: Target[] = [];
    if (SCENARIOS.has('raw')) {
      const raw = await startChild('bench/raw-uws.ts', { PORT: '0' });
      children.push(raw);
      targets.push({ scenario: 'raw uWS fixed JSON', child: raw, load: { path: '/v1/eligibility', apiKey: null, mode: 'hot' } });
    }
    const started = Date.now();
    const { hotKey, exactKey } = await seed(redis, keys);
    process.stdout.write(`  seeded ${CARRIERS} carriers in ${Date.now() - started} ms under ${prefix}\n`);
    const serviceEnv = { REDIS_URL, REDIS_PREFIX: prefix, PORT: '0', HOST: '127.0.0.1', ROLE: 'api', LOG_LEVEL };
    const profile = env.BENCH_CPU_PROF === '1' ? ['--cpu-prof', `--cpu-prof-dir=${new URL('prof/', OUT_DIR).pathname}`] : [];
    let hotService: Child | null = null;
    if (SCENARIOS.has('hot') || SCENARIOS.has('exact')) {
      hotService = await startChild('bench/serve.ts', serviceEnv, profile);
      children.push(hotService);
      if (SCENARIOS.has('hot')) {
        targets.push({ scenario: 'service cache-hot', child: hotService, load: { path: '/v1/eligibility', apiKey: hotKey, mode: 'hot' } });
      }
    }
    if (SCENARIOS.has('cold')) {
      // A small LRU and a key range ten times the snapshot: nearly every request is a Redis HGET, 90% of them
      // for unknown carriers (negative results are cached too, hence the small LRU).
      const coldService = await startChild('bench/serve.ts', { ...serviceEnv, CARRIER_CACHE_MAX: '1000' }, profile);
      children.push(coldService);
      targets.push({ scenario: 'service cache-cold', child: coldService, load: { path: '/v1/eligibility', apiKey: hotKey, mode: 'cold' } });
    }
    rows.push(...await measureAll(targets));
    if (hotService && SCENARIOS.has('exact')) {
      // Three times the budget at full concurrency, well inside one window: exactly the budget must pass.
      const result = await autocannon({
        url: `http://127.0.0.1:${hotService.port}/v1/eligibility`, connections: CONNECTIONS, amount: 3 * EXACT_BUDGET,
        method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': exactKey }, body: `{"mc_number":"${HOT_MC}"}`,
      });
      const count = (status: string) => result.statusCodeStats?.[status as `${number}`]?.count ?? 0;
      const admitted = count('200');
      const limited = count('429');
      const other = 3 * EXACT_BUDGET - admitted - limited;
      exact = { budget: EXACT_BUDGET, admitted, limited, other, ok: admitted === EXACT_BUDGET && other === 0 };
    }
  } finally {
    for (const child of children) await child.stop();
    await deleteByPrefix(redis, prefix);
    redis.disconnect();
  }

  printTable(rows);
  if (exact) {
    process.stdout.write(`\nbudget exactness: budget ${exact.budget}, sent ${3 * exact.budget} at ${CONNECTIONS} connections → `
      + `${exact.admitted} × 200, ${exact.limited} × 429, ${exact.other} other: ${exact.ok ? 'EXACT' : 'NOT EXACT'}\n`);
  }
  mkdirSync(OUT_DIR, { recursive: true });
  const file = new URL(`http-load-${new Date().toISOString().replace(/[:.]/g, '-')}.json`, OUT_DIR);
  writeFileSync(file, `${JSON.stringify({
    at: new Date().toISOString(), node: process.version, cpus: availableParallelism(), connections: CONNECTIONS,
    durationSeconds: DURATION, repeat: REPEAT, pinned: PIN, logLevel: LOG_LEVEL, results: rows, exact,
  }, null, 2)}\n`);
  process.stdout.write(`results: ${file.pathname}\n`);
  if (exact && !exact.ok) process.exitCode = 1;
}

await main();
