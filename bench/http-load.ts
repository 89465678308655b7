// HTTP load bench (issue 10): POST /v1/eligibility on the service (cache-hot and cache-cold) against, in the same
// run, a raw uWebSockets.js server answering fixed JSON (the HTTP ceiling), the floor of answering after one Redis
// round trip (bench/floor-uws.ts), and two peers doing the same work the
// plain way (bench/peers/: naive uWS, idiomatic Fastify). Every server runs in its own process pinned to CPU 0;
// the load generator (wrk, else autocannon) and, by default, a private redis-server run on CPU 1. Each round
// measures every server back to back, so ratios are taken within one round (one window of background load);
// the table reports the median round per row and the spread of the ratio over the rounds.
// Per run it records req/s, p50/p99, the server's CPU µs per response and GC pauses (both reported by the server
// over IPC, bench/child-stats.ts), Redis commands and Redis CPU per response (INFO commandstats / INFO cpu
// deltas of the private Redis). A last step checks that the budget stayed exact under load.
// Knobs (env): BENCH_DURATION (s, 8), BENCH_CONNECTIONS (100), BENCH_REPEAT (3), BENCH_CARRIERS (100000),
// BENCH_COLD_RANGE (1000000), BENCH_LOG_LEVEL (info), BENCH_SCENARIOS (raw,raw-verdict,floor,hot,hot-node,cold,naive,fastify,exact; also
// naive-cold, fastify-cold, and direct: the service's parts under one hand-written uWS handler, bench/direct-uws.ts), BENCH_TOOL (wrk when installed, else autocannon), BENCH_RATE (req/s offered in total: think
// times on wrk, overallRate on autocannon; unset: as many as the connections carry), BENCH_PIN (1), BENCH_REDIS
// (private | shared: REDIS_URL), BENCH_PEER_RECORDS (1: the peers write one record per verdict), BENCH_PEER_EVIDENCE
// (1: the peers' verdicts and records carry the evidence, as the service's do; 0: dropped, the peers without it),
// BENCH_HOT_MC (12345), BENCH_CPU_PROF (0: profile the service processes), BENCH_OUT (file stem; default .bench-out/http-load-<time>),
// BENCH_BASELINE (a directory holding another checkout, e.g. `git archive <commit> | tar -x -C DIR` with
// node_modules linked: its service runs as extra rows in the same rounds, for before/after in one window; `.` for
// this checkout), BENCH_BASELINE_ENV (NAME=value,… given to the baseline's services only: with BENCH_BASELINE=. it
// prices a setting, e.g. DECISION_RECORDS=off for what writing the decision records costs),
// BENCH_FROM_SOURCE (0: the servers run compiled by tsc, as in production; 1: the .ts sources through tsx),
// BENCH_NODE_ARGS (extra Node options of the services, e.g. --trace-gc), BENCH_BASELINE_NODE_ARGS (the baseline's
// instead of BENCH_NODE_ARGS: with BENCH_BASELINE=. it prices a Node option), BENCH_K8S_NODE_OPTIONS (1: every server
// runs with the API pods' NODE_OPTIONS from k8s/api.yaml; 0: with Node's defaults), BENCH_STDOUT (a file for the servers'
// stdout instead of /dev/null),
// BENCH_FRESH_PROCESSES (0; 1: every server is a new process in every round, see measureAll), BENCH_WARMUP (s of load
// before the rounds and after each restart: 2).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, openSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import autocannon from 'autocannon';
import { Redis } from 'ioredis';
import { KeyAdmin } from '../src/auth/key-store.js';
import { DEFAULT_RULE_SET, SOURCE_NAMES } from '../src/core/ruleset.js';
import { deleteByPrefix } from '../src/redis/delete-by-prefix.js';
import { redisKeys, type RedisKeys } from '../src/store/keys.js';
import { publishRuleSet } from '../src/store/rulesets.js';
import { newSnapshotVersion, SnapshotWriter } from '../src/store/snapshot-writer.js';
import { cleanCarrier } from '../test/helpers/harness.js';
import { PrivateRedis } from '../test/helpers/private-redis.js';
import { apiNodeOptions } from './api-node-options.js';
import { baselineEnv, baselineNodeArgs, describeBaseline, nodeOptions } from './baseline-options.js';
import type { ChildStats } from './child-stats.js';
import { goalsTable, issueGoals, median } from './goals.js';
import { clearRecords } from './record-cleanup.js';
import { COLD, DIRECT, FLOOR, HOT, HOT_NODE, RAW, RAW_VERDICT } from './scenario-labels.js';

const env = process.env;
const require = createRequire(import.meta.url);
const DURATION = Number(env.BENCH_DURATION ?? 8);
const CONNECTIONS = Number(env.BENCH_CONNECTIONS ?? 100);
const REPEAT = Math.max(1, Number(env.BENCH_REPEAT ?? 3));
const FRESH_PROCESSES = env.BENCH_FRESH_PROCESSES === '1';
const CARRIERS = Number(env.BENCH_CARRIERS ?? 100_000);
const COLD_RANGE = Number(env.BENCH_COLD_RANGE ?? 1_000_000);
const LOG_LEVEL = env.BENCH_LOG_LEVEL ?? 'info';
const SCENARIOS = new Set((env.BENCH_SCENARIOS ?? 'raw,raw-verdict,floor,hot,hot-node,cold,naive,fastify,exact').split(','));
const PEER_RECORDS = env.BENCH_PEER_RECORDS ?? '1';
/** 1: the decision records are removed between measured runs (bench/record-cleanup.ts); 0: they pile up. */
const CLEAR_RECORDS = (env.BENCH_CLEAR_RECORDS ?? '1') === '1';
const PEER_EVIDENCE = env.BENCH_PEER_EVIDENCE ?? '1';
// A carrier of the snapshot with a clean record (12345 % 7 ≠ 0): an eligible verdict with its evidence, the
// common answer. (Runs before 2026-11-23 used 123456, which is outside the 100,000-carrier snapshot: not found.)
const HOT_MC = env.BENCH_HOT_MC ?? '12345';
const EXACT_BUDGET = 2000;
const OUT_DIR = new URL('../.bench-out/', import.meta.url);
const WARMUP = Number(env.BENCH_WARMUP ?? 2);

function hasCommand(name: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const CPUS = availableParallelism();
const PIN = env.BENCH_PIN !== '0' && CPUS >= 2 && hasCommand('taskset');
type Tool = 'autocannon' | 'wrk';
/**
 * BENCH_RATE=N: offer about N requests per second in total instead of as many as the connections can carry, to read
 * latency at a given load rather than at saturation (closed-loop at 100 connections, p50 ≈ 100 ÷ req/s by Little's
 * law, so saturation latency only restates throughput). On wrk each connection waits a random think time of mean
 * connections ÷ N after every response (WRK_THINK_MS in bench/wrk-eligibility.lua; wrk's latency excludes it); on
 * autocannon (BENCH_TOOL=autocannon, or no wrk) its overallRate paces, with 1 ms latency resolution and the load
 * generator in Node on the same CPU as Redis, which inflated every p99 here.
 */
const RATE = env.BENCH_RATE ? Number(env.BENCH_RATE) : null;
const TOOL: Tool = (env.BENCH_TOOL as Tool | undefined) ?? (hasCommand('wrk') ? 'wrk' : 'autocannon');
/** The mean think time per connection that offers RATE on wrk (whole ms, wrk's unit; at least 1). */
const THINK_MS = RATE === null ? 0 : Math.max(1, Math.round((CONNECTIONS * 1000) / RATE));
const PRIVATE_REDIS = (env.BENCH_REDIS ?? 'private') === 'private' && hasCommand('redis-server');

const pinned = (cpu: number, command: string[]): string[] => (PIN ? ['taskset', '-c', String(cpu), ...command] : command);

// ---------- what one run measures ----------

/** What the load generator reports for one run. */
interface LoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
  /** Responses in the run (the denominator of every per-request figure). */
  requests: number;
}

/** One run of one server: the load generator's figures plus what the server and Redis report for it. */
interface Measurement extends LoadResult {
  /** Row label: the server and its scenario. */
  scenario: string;
  round: number;
  tool: Tool;
  /** Server process CPU time (user + system, all threads) per response, µs. */
  cpuMicrosPerRequest: number;
  /** The kernel's part of cpuMicrosPerRequest (null for a baseline whose bench does not report it). */
  systemMicrosPerRequest: number | null;
  /** GC pauses in the server during the run. */
  gc: { count: number; ms: number; major: number };
  /** Commands the server's clients sent per response, by name: its round trips to Redis (client-side count). */
  callsPerRequest: Record<string, number>;
  /** Commands Redis executed per response, by name (INFO commandstats delta: includes those run inside Lua scripts). */
  redisPerRequest: Record<string, number>;
  /** Redis process CPU per response, µs (INFO cpu delta; private Redis only). */
  redisCpuMicrosPerRequest: number | null;
  ratioToRaw?: number;
  /** Server CPU µs/req divided by the raw server's in the same round (the issue's "CPU per request ≤ 2× raw"). */
  cpuToRaw?: number;
}

// ---------- children ----------

/**
 * The servers run as compiled JavaScript, as production does (the image runs tsc's dist/, not tsx): `tsc -p
 * bench/tsconfig.bench.json` puts src/ and the bench's server scripts under .bench-out/dist/, and
 * scripts/build-assets.mjs adds the Lua scripts and package.json beside them. Through tsx, esbuild's keepNames
 * wraps every named closure in a `__name()` call (a defineProperty per closure made), measurable on a hot path
 * that production never runs. BENCH_FROM_SOURCE=1 runs the .ts sources through tsx instead (no build step).
 * A BENCH_BASELINE tree is compiled the same way when it has bench/tsconfig.bench.json, else run through tsx.
 */
const FROM_SOURCE = env.BENCH_FROM_SOURCE === '1';

/** Compiles a checkout's bench code; returns the directory of the compiled tree, or null without bench/tsconfig.bench.json. */
function compileServers(root: string): string | null {
  const config = `${root}/bench/tsconfig.bench.json`;
  if (!existsSync(config)) return null;
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', config], { cwd: root, stdio: 'inherit' });
  execFileSync(process.execPath, [`${root}/scripts/build-assets.mjs`, `${root}/.bench-out/dist`], { cwd: root, stdio: 'inherit' });
  return `${root}/.bench-out/dist`;
}

const ROOT = new URL('../', import.meta.url).pathname.replace(/\/$/, '');

/** Where a checkout's bench server `bench/<name>.ts` runs from: its compiled .js, or the source (through tsx). */
function serverScript(compiled: string | null, root: string, name: string): string {
  return compiled === null ? `${root}/${name}.ts` : `${compiled}/${name}.js`;
}

interface Child {
  port: number;
  pid: number;
  /** The environment it was started with. */
  env: NodeJS.ProcessEnv;
  stats(): Promise<ChildStats>;
  stop(): Promise<void>;
}

// BENCH_STDOUT=FILE keeps the servers' stdout instead (e.g. with BENCH_NODE_ARGS=--trace-gc).
const devNull = openSync(env.BENCH_STDOUT ?? '/dev/null', 'w');

// The API pods' Node options: every server of the bench runs with them, the service as production starts it and the
// others on the same terms (BENCH_K8S_NODE_OPTIONS=0: none).
const API_NODE_OPTIONS = apiNodeOptions(ROOT);

/** Starts a bench server in its own process (pinned to CPU 0) and waits for it to report its port. */
function startChild(script: string, childEnv: Record<string, string>, nodeArgs: string[] = []): Promise<Child> {
  const node = [process.execPath, ...API_NODE_OPTIONS, ...nodeArgs, ...(script.endsWith('.ts') ? ['--import', 'tsx'] : []), script];
  const [command, ...args] = pinned(0, node);
  // stdout (the access log) goes to /dev/null: it still costs the server its serialisation and write(2),
  // as a pipe to the container runtime would, but not a reader on these cores.
  const serverEnv = { ...env, ...childEnv };
  const child: ChildProcess = spawn(command ?? process.execPath, args, {
    env: serverEnv, stdio: ['ignore', devNull, 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${script} exited early (${code})`)));
    child.once('message', (message) => {
      const { port } = message as { port: number };
      resolve({
        port,
        pid: child.pid ?? -1,
        env: serverEnv,
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

/**
 * A server of the bench: one process at a time, replaced by a fresh one (same script, options and environment)
 * between rounds under BENCH_FRESH_PROCESSES, so each round measures a new process.
 */
class Server implements Child {
  private constructor(private child: Child, private readonly start: () => Promise<Child>) {}

  static async start(script: string, childEnv: Record<string, string>, nodeArgs: string[] = []): Promise<Server> {
    const start = () => startChild(script, childEnv, nodeArgs);
    return new Server(await start(), start);
  }

  get port(): number {
    return this.child.port;
  }

  get pid(): number {
    return this.child.pid;
  }

  get env(): NodeJS.ProcessEnv {
    return this.child.env;
  }

  stats(): Promise<ChildStats> {
    return this.child.stats();
  }

  stop(): Promise<void> {
    return this.child.stop();
  }

  async restart(): Promise<void> {
    await this.child.stop();
    this.child = await this.start();
  }
}

// ---------- load generators ----------

interface Load {
  apiKey: string | null;
  mode: 'hot' | 'cold';
}

const PATH = '/v1/eligibility';

async function runAutocannon(port: number, load: Load, duration: number): Promise<autocannon.Result> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (load.apiKey) headers['x-api-key'] = load.apiKey;
  const base = { url: `http://127.0.0.1:${port}`, connections: CONNECTIONS, duration, ...(RATE !== null ? { overallRate: RATE } : {}) };
  if (load.mode === 'hot') {
    return autocannon({ ...base, url: `${base.url}${PATH}`, method: 'POST', headers, body: JSON.stringify({ mc_number: HOT_MC }) });
  }
  return autocannon({
    ...base,
    requests: [{
      method: 'POST', path: PATH, headers,
      setupRequest: (request) => ({ ...request, body: `{"mc_number":"${1 + Math.floor(Math.random() * COLD_RANGE)}"}` }),
    }],
  });
}

function wrkMs(output: string, label: string): number {
  const match = new RegExp(`^\\s*${label}\\s+([\\d.]+)(us|ms|s)\\s*$`, 'm').exec(output);
  if (!match?.[1]) return Number.NaN;
  const value = Number(match[1]);
  return match[2] === 'us' ? value / 1000 : match[2] === 's' ? value * 1000 : value;
}

function runWrk(port: number, load: Load, duration: number): Promise<LoadResult> {
  const [command, ...args] = pinned(1, ['wrk', '-t1', `-c${CONNECTIONS}`, `-d${duration}s`, '--latency', '-s', 'bench/wrk-eligibility.lua', `http://127.0.0.1:${port}${PATH}`]);
  return new Promise((resolve, reject) => {
    const child = spawn(command ?? 'wrk', args, {
      env: { ...env, WRK_MODE: load.mode, WRK_MC: HOT_MC, WRK_RANGE: String(COLD_RANGE), WRK_API_KEY: load.apiKey ?? '', WRK_THINK_MS: String(THINK_MS) },
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
        requestsPerSecond: Number(/Requests\/sec:\s+([\d.]+)/.exec(output)?.[1] ?? Number.NaN),
        p50Ms: wrkMs(output, '50%'), p99Ms: wrkMs(output, '99%'),
        non2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(output)?.[1] ?? 0),
        errors: socketErrors ? socketErrors.slice(1).reduce((sum, count) => sum + Number(count), 0) : 0,
        requests: Number(/(\d+) requests in/.exec(output)?.[1] ?? 0),
      });
    });
  });
}

async function runLoad(port: number, load: Load, duration: number): Promise<LoadResult> {
  if (TOOL === 'wrk') return runWrk(port, load, duration);
  const result = await runAutocannon(port, load, duration);
  return {
    requestsPerSecond: result.requests.average, p50Ms: result.latency.p50, p99Ms: result.latency.p99,
    non2xx: result.non2xx, errors: result.errors, requests: result.requests.total,
  };
}

// ---------- Redis counters ----------

interface RedisCounters {
  calls: Record<string, number>;
  cpuSeconds: number;
}

async function redisCounters(redis: Redis): Promise<RedisCounters> {
  const calls: Record<string, number> = {};
  for (const match of (await redis.info('commandstats')).matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
    calls[match[1] as string] = Number(match[2]);
  }
  const cpu = await redis.info('cpu');
  const field = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(cpu)?.[1] ?? 0);
  return { calls, cpuSeconds: field('used_cpu_sys') + field('used_cpu_user') };
}

/** Commands the bench itself sends around a run (INFO twice), left out of the per-request counts. */
const OWN_COMMANDS = new Set(['info']);

function perRequest(counts: Record<string, number>, requests: number): Record<string, number> {
  return Object.fromEntries(Object.entries(counts)
    .filter(([name, count]) => count > 0 && !OWN_COMMANDS.has(name))
    .sort(([, a], [, b]) => b - a)
    .map(([name, count]) => [name, Math.round((count / requests) * 10_000) / 10_000]));
}

// ---------- targets and rounds ----------

interface Target {
  scenario: string;
  child: Server;
  load: Load;
}

/** One measured run, with the server's CPU, GC and Redis activity over exactly that run. */
async function measureRun(target: Target, round: number, redis: Redis | null): Promise<Measurement> {
  const { child, load, scenario } = target;
  await child.stats();
  const before = redis ? await redisCounters(redis) : null;
  const result = await runLoad(child.port, load, DURATION);
  const after = redis ? await redisCounters(redis) : null;
  const stats = await child.stats();
  const requests = Math.max(1, result.requests);
  const executed: Record<string, number> = before && after
    ? Object.fromEntries(Object.entries(after.calls).map(([name, calls]) => [name, calls - (before.calls[name] ?? 0)]))
    : {};
  const measurement: Measurement = {
    scenario, round, tool: TOOL, ...result,
    cpuMicrosPerRequest: Math.round((stats.cpuMicros / requests) * 10) / 10,
    // null for a baseline whose bench predates the kernel share.
    systemMicrosPerRequest: stats.systemMicros === undefined ? null : Math.round((stats.systemMicros / requests) * 10) / 10,
    gc: stats.gc,
    callsPerRequest: perRequest(stats.commands ?? {}, requests),
    redisPerRequest: perRequest(executed, requests),
    redisCpuMicrosPerRequest: before && after ? Math.round(((after.cpuSeconds - before.cpuSeconds) * 1e6 / requests) * 10) / 10 : null,
  };
  process.stdout.write(`  round ${round} ${scenario.padEnd(26)} ${String(Math.round(result.requestsPerSecond)).padStart(7)} req/s`
    + `  p99 ${result.p99Ms.toFixed(2)} ms  ${measurement.cpuMicrosPerRequest} µs CPU/req (kernel ${measurement.systemMicrosPerRequest ?? 'n/a'})  GC ${stats.gc.count}/${stats.gc.ms.toFixed(0)} ms`
    + `${result.non2xx + result.errors > 0 ? `  non-2xx ${result.non2xx} errors ${result.errors}` : ''}\n`);
  return measurement;
}

const PEERS = [['naive', 'bench/peers/naive-uws', 'naive uWS full path'], ['fastify', 'bench/peers/fastify', 'Fastify full path']] as const;

/**
 * Warm-up (JIT, caches, connections), then REPEAT rounds of every target back to back; ratios within a round.
 * Even rounds run the targets in reverse order, so no server always runs first or last in a round (an A/A run
 * of one tree as service and as baseline, always in that order, gave the service slot 1.056× the baseline's CPU
 * per request in its median round: a before/after read off one fixed order carries that slot's bias).
 */
async function measureAll(targets: Target[], redis: Redis | null, betweenRuns: () => Promise<void>): Promise<Measurement[]> {
  for (const target of targets) await runLoad(target.child.port, target.load, WARMUP);
  await betweenRuns();
  const runs: Measurement[] = [];
  for (let round = 1; round <= REPEAT; round += 1) {
    const thisRound: Measurement[] = [];
    const order = round % 2 === 0 ? [...targets].reverse() : targets;
    if (FRESH_PROCESSES && round > 1) {
      // A process keeps its own luck for all its rounds (heap and code layout, the GC's sizing: an A/A run of one
      // tree showed one cache-cold process 12 % dearer than its twin in 5 of 6 rounds); new processes per round
      // turn that into round-to-round spread, which the medians absorb.
      for (const server of new Set(targets.map((target) => target.child))) await server.restart();
      for (const target of order) await runLoad(target.child.port, target.load, WARMUP);
      await betweenRuns();
    }
    for (const target of order) {
      thisRound.push(await measureRun(target, round, redis));
      await betweenRuns();
    }
    const raw = thisRound.find((run) => run.scenario === RAW);
    if (raw) {
      for (const run of thisRound) {
        run.ratioToRaw = run.requestsPerSecond / raw.requestsPerSecond;
        run.cpuToRaw = run.cpuMicrosPerRequest / raw.cpuMicrosPerRequest;
      }
    }
    runs.push(...thisRound);
  }
  return runs;
}

interface Row {
  scenario: string;
  /** The median run by req/s. */
  median: Measurement;
  ratio: { median: number; min: number; max: number } | null;
  cpuRange: { min: number; max: number };
  /** Median over rounds of CPU µs/req relative to raw uWS in the same round. */
  cpuToRaw: number | null;
  /** Median over rounds of CPU µs/req: the steadiest number on a shared machine. */
  cpuMedian: number;
  /** Median over rounds of its kernel part (null when the server's bench does not report it). */
  kernelMedian: number | null;
}

function summarise(runs: Measurement[]): Row[] {
  const scenarios = [...new Set(runs.map((run) => run.scenario))];
  return scenarios.map((scenario) => {
    const mine = runs.filter((run) => run.scenario === scenario);
    const byRate = [...mine].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond);
    const ratios = mine.map((run) => run.ratioToRaw).filter((ratio): ratio is number => ratio !== undefined).sort((a, b) => a - b);
    const cpu = mine.map((run) => run.cpuMicrosPerRequest);
    const cpuToRaw = mine.map((run) => run.cpuToRaw).filter((ratio): ratio is number => ratio !== undefined);
    const kernel = mine.map((run) => run.systemMicrosPerRequest).filter((micros): micros is number => micros !== null);
    return {
      kernelMedian: median(kernel),
      scenario,
      cpuToRaw: median(cpuToRaw),
      cpuMedian: median(cpu) ?? Number.NaN,
      median: byRate[Math.floor(byRate.length / 2)] as Measurement,
      ratio: ratios.length > 0 ? { median: ratios[Math.floor(ratios.length / 2)] as number, min: ratios[0] as number, max: ratios[ratios.length - 1] as number } : null,
      cpuRange: { min: Math.min(...cpu), max: Math.max(...cpu) },
    };
  });
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
  // Every source present and fresh, whatever the rule set requires: verdicts are fully screened, never data_stale.
  await writer.commit({
    data_as_of: now, created_at: now, carrier_count: CARRIERS,
    sources: Object.fromEntries(SOURCE_NAMES.map((source) => [source, { present: true, as_of: now, rows: CARRIERS }])),
  });
  const admin = new KeyAdmin(redis, keys);
  const issue = async (rate: number) => (await admin.issue({ account: 'bench', label: 'bench', scopes: ['eligibility'], rate_per_minute: rate })).key;
  return { hotKey: await issue(1_000_000_000), exactKey: await issue(EXACT_BUDGET) };
}

/**
 * The verdict fields every server must agree on: the spec's ten plus mc_number, carrier and (unless the peers run
 * with BENCH_PEER_EVIDENCE=0) the evidence; ids and times vary.
 */
const COMPARED_FIELDS = ['eligible', 'found', 'tier', 'reasons', 'degraded', 'ruleset_version', 'data_as_of', 'mc_number', 'carrier',
  ...(PEER_EVIDENCE === '1' ? ['evidence'] : [])];

/** JSON with every object's members in name order: the servers need not agree on member order, only on content. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_name, member: unknown) => (member !== null && typeof member === 'object' && !Array.isArray(member)
    ? Object.fromEntries(Object.entries(member).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
    : member));
}

/** Length of the service's cache-hot answer body. */
async function verdictLength(port: number, apiKey: string): Promise<number> {
  const response = await fetch(`http://127.0.0.1:${port}${PATH}`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': apiKey }, body: JSON.stringify({ mc_number: HOT_MC }),
  });
  return (await response.arrayBuffer()).byteLength;
}

/**
 * Every server must give the same answer before its speed means anything: status, the contract's headers and the
 * verdict fields above. A field only some servers return (the evidence, with BENCH_PEER_EVIDENCE=0) is named in
 * the results, not compared.
 */
async function sameAnswer(targets: Target[], apiKey: string): Promise<{ problems: string[]; serviceOnly: string[] }> {
  const problems: string[] = [];
  const serviceOnly = new Set<string>();
  let reference: { scenario: string; shape: string } | null = null;
  for (const target of targets) {
    if (target.scenario === RAW || target.scenario === RAW_VERDICT || target.scenario === FLOOR) continue;
    const response = await fetch(`http://127.0.0.1:${target.child.port}${PATH}`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': apiKey }, body: JSON.stringify({ mc_number: `MC-${HOT_MC}` }),
    });
    const body = await response.json() as Record<string, unknown>;
    for (const name of Object.keys(body)) if (!COMPARED_FIELDS.includes(name) && !['decision_id', 'evaluated_at', 'cache_hit'].includes(name)) serviceOnly.add(name);
    const stable = Object.fromEntries(COMPARED_FIELDS.map((name) => [name, body[name]]));
    const headers = ['content-type', 'cache-control', 'x-request-id', 'ratelimit-policy', 'ratelimit'].map((name) => `${name}:${response.headers.has(name)}`);
    const shape = canonicalJson({ status: response.status, headers, stable });
    reference ??= { scenario: target.scenario, shape };
    if (shape !== reference.shape) problems.push(`${target.scenario} answers ${shape}\n  but ${reference.scenario} answers ${reference.shape}`);
  }
  return { problems, serviceOnly: [...serviceOnly] };
}

// ---------- output ----------

const fmt = (value: number, digits = 0) => (Number.isFinite(value) ? value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }) : 'n/a');

function redisColumn(counts: Record<string, number>): string {
  const entries = Object.entries(counts);
  if (entries.length === 0) return '0';
  const total = entries.reduce((sum, [, count]) => sum + count, 0);
  const top = entries.slice(0, 4).map(([name, count]) => `${name} ${count}`).join(', ');
  return `${Math.round(total * 1000) / 1000} (${top}${entries.length > 4 ? ', …' : ''})`;
}

function markdownTable(rows: Row[]): string {
  return [
    '| server, scenario | req/s | ratio to raw uWS (min–max) | p50 ms | p99 ms | server CPU µs/req (min–max); kernel part | CPU/req vs raw | one-core capacity req/s | Redis calls/req sent | Redis cmds/req executed | Redis CPU µs/req | GC pauses per 10k req: count, ms (major, in the run) | non-2xx / errors |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---|---|---:|---:|---:|',
    ...rows.map(({ scenario, median: m, ratio, cpuRange, cpuToRaw, cpuMedian, kernelMedian }) => `| ${scenario} | ${fmt(m.requestsPerSecond)} | `
      + `${ratio ? `${fmt(ratio.median, 2)} (${fmt(ratio.min, 2)}–${fmt(ratio.max, 2)})` : 'n/a'} | ${fmt(m.p50Ms, 2)} | ${fmt(m.p99Ms, 2)} | `
      + `${fmt(cpuMedian, 1)} (${fmt(cpuRange.min, 1)}–${fmt(cpuRange.max, 1)}); ${kernelMedian === null ? 'n/a' : fmt(kernelMedian, 1)} | ${cpuToRaw === null ? 'n/a' : `${fmt(cpuToRaw, 2)}×`} | ${fmt(1e6 / cpuMedian)} | `
      + `${redisColumn(m.callsPerRequest)} | ${redisColumn(m.redisPerRequest)} | `
      + `${m.redisCpuMicrosPerRequest === null ? 'n/a' : fmt(m.redisCpuMicrosPerRequest, 1)} | ${fmt((m.gc.count * 10_000) / Math.max(1, m.requests), 1)}, ${fmt((m.gc.ms * 10_000) / Math.max(1, m.requests), 1)} (${m.gc.major}) | ${m.non2xx} / ${m.errors} |`),
  ].join('\n');
}

// ---------- main ----------

async function main(): Promise<void> {
  if (PIN) execFileSync('taskset', ['-p', '-c', '1', String(process.pid)], { stdio: 'ignore' });
  // Started after pinning this process, so the private redis-server inherits CPU 1.
  const privateRedis = PRIVATE_REDIS ? await PrivateRedis.start() : null;
  const redisUrl = privateRedis?.url ?? env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const prefix = `bench:${randomBytes(5).toString('hex')}:`;
  const redis = new Redis(redisUrl);
  const counterClient = privateRedis ? new Redis(redisUrl) : null;
  const keys = redisKeys(prefix);
  let runs: Measurement[] = [];
  let exact: { budget: number; admitted: number; limited: number; other: number; ok: boolean } | null = null;
  let answerProblems: string[] = [];
  let serviceOnly: string[] = [];
  const compiled = FROM_SOURCE ? null : compileServers(ROOT);
  // Node options of the services under test, a BENCH_BASELINE's too (a before/after on the same terms): the
  // profiler (BENCH_CPU_PROF=1) and any extra (BENCH_NODE_ARGS); the baseline's unless BENCH_BASELINE_NODE_ARGS.
  const profile = [
    ...(env.BENCH_CPU_PROF === '1' ? ['--cpu-prof', `--cpu-prof-dir=${new URL('prof/', OUT_DIR).pathname}`] : []),
    ...nodeOptions(env.BENCH_NODE_ARGS),
  ];
  const baseArgs = baselineNodeArgs(profile, env.BENCH_NODE_ARGS, env.BENCH_BASELINE_NODE_ARGS);
  const header = `${CONNECTIONS} connections, ${DURATION} s per run after a ${WARMUP} s warm-up, ${REPEAT} round(s), load by ${TOOL}${RATE !== null ? ` at ${RATE} req/s offered` : ""}, `
    + `pinning ${PIN ? 'servers→CPU 0, load generator + Redis→CPU 1' : 'off'}, Redis ${privateRedis ? 'private (INFO counters are this run\'s only)' : `shared ${redisUrl}`}, `
    + `service LOG_LEVEL=${LOG_LEVEL}, peers write records: ${PEER_RECORDS === '1' ? 'yes' : 'no'}, `
    + `peers send evidence: ${PEER_EVIDENCE === '1' ? 'yes' : 'no'}, `
    + `decision records ${CLEAR_RECORDS ? 'removed between runs' : 'left in Redis between runs'}, `
    + `servers run ${compiled === null ? 'from source through tsx' : 'compiled by tsc'}`
    + `${FRESH_PROCESSES ? ', a new process per server per round' : ''}`
    + `${env.BENCH_BASELINE ? describeBaseline({ directory: env.BENCH_BASELINE, root: ROOT, envSpec: env.BENCH_BASELINE_ENV, serviceArgs: profile, baselineArgs: baseArgs }) : ''}`;
  process.stdout.write(`bench: ${header}\n`);
  const children: Server[] = [];
  try {
    const started = Date.now();
    const { hotKey, exactKey } = await seed(redis, keys);
    process.stdout.write(`  seeded ${CARRIERS} carriers in ${Date.now() - started} ms under ${prefix}\n`);
    const targets: Target[] = [];
    const hot: Load = { apiKey: hotKey, mode: 'hot' };
    const cold: Load = { apiKey: hotKey, mode: 'cold' };
    if (SCENARIOS.has('raw')) {
      const raw = await Server.start(serverScript(compiled, ROOT, 'bench/raw-uws'), { PORT: '0' });
      children.push(raw);
      targets.push({ scenario: RAW, child: raw, load: { apiKey: null, mode: 'hot' } });
    }
    const serviceEnv = { REDIS_URL: redisUrl, REDIS_PREFIX: prefix, PORT: '0', HOST: '127.0.0.1', ROLE: 'api', LOG_LEVEL };
    let hotService: Server | null = null;
    if (SCENARIOS.has('hot') || SCENARIOS.has('exact')) {
      hotService = await Server.start(serverScript(compiled, ROOT, 'bench/serve'), serviceEnv, profile);
      children.push(hotService);
      if (SCENARIOS.has('hot')) targets.push({ scenario: HOT, child: hotService, load: hot });
    }
    if (SCENARIOS.has('hot-node')) {
      // The service on node:http (HTTP_ENGINE=node), in the same rounds: its ratio to raw uWS beside the uws engine's.
      const nodeService = await Server.start(serverScript(compiled, ROOT, 'bench/serve'), { ...serviceEnv, HTTP_ENGINE: 'node' }, profile);
      children.push(nodeService);
      targets.push({ scenario: HOT_NODE, child: nodeService, load: hot });
    }
    if (SCENARIOS.has('direct')) {
      // The service's parts without its HTTP adapter and route (bench/direct-uws.ts): what their generality costs.
      const direct = await Server.start(serverScript(compiled, ROOT, 'bench/direct-uws'), serviceEnv, profile);
      children.push(direct);
      targets.push({ scenario: DIRECT, child: direct, load: hot });
    }
    if (SCENARIOS.has('cold')) {
      // A small LRU and a key range ten times the snapshot: nearly every request is one Redis HGET, 90% of them
      // for unknown carriers (negative results are cached too, hence the small LRU).
      const coldService = await Server.start(serverScript(compiled, ROOT, 'bench/serve'), { ...serviceEnv, CARRIER_CACHE_MAX: '1000' }, profile);
      children.push(coldService);
      targets.push({ scenario: COLD, child: coldService, load: cold });
    }
    if (env.BENCH_BASELINE) {
      const label = `baseline ${env.BENCH_BASELINE_LABEL ?? env.BENCH_BASELINE}`;
      const baseRoot = env.BENCH_BASELINE.replace(/\/$/, '');
      const script = serverScript(FROM_SOURCE ? null : compileServers(baseRoot), baseRoot, 'bench/serve');
      const baseEnv = { ...serviceEnv, ...baselineEnv(env.BENCH_BASELINE_ENV) };
      if (SCENARIOS.has('hot')) {
        const baseHot = await Server.start(script, baseEnv, baseArgs);
        children.push(baseHot);
        targets.push({ scenario: `${label}, cache-hot`, child: baseHot, load: hot });
      }
      if (SCENARIOS.has('cold')) {
        const baseCold = await Server.start(script, { ...baseEnv, CARRIER_CACHE_MAX: '1000' }, baseArgs);
        children.push(baseCold);
        targets.push({ scenario: `${label}, cache-cold`, child: baseCold, load: cold });
      }
    }
    // The floor and raw-verdict answer with a body as long as the service's cache-hot verdict (evidence included).
    const needsLength = SCENARIOS.has('raw-verdict') || SCENARIOS.has('floor');
    const bytes = hotService && needsLength ? await verdictLength(hotService.port, hotKey) : 3400;
    if (SCENARIOS.has('raw-verdict')) {
      const rawVerdict = await Server.start(serverScript(compiled, ROOT, 'bench/raw-uws'), { PORT: '0', RAW_BODY_BYTES: String(bytes) });
      children.push(rawVerdict);
      targets.splice(SCENARIOS.has('raw') ? 1 : 0, 0, { scenario: RAW_VERDICT, child: rawVerdict, load: { apiKey: null, mode: 'hot' } });
    }
    if (SCENARIOS.has('floor')) {
      const floor = await Server.start(serverScript(compiled, ROOT, 'bench/floor-uws'), { PORT: '0', REDIS_URL: redisUrl, FLOOR_BODY_BYTES: String(bytes) });
      children.push(floor);
      targets.splice(SCENARIOS.has('raw') ? 1 : 0, 0, { scenario: FLOOR, child: floor, load: { apiKey: null, mode: 'hot' } });
    }
    const peerEnv = { ...serviceEnv, CARRIER_CACHE_MAX: '1000', PEER_RECORDS, PEER_EVIDENCE };
    for (const [name, script, label] of PEERS) {
      if (!SCENARIOS.has(name) && !SCENARIOS.has(`${name}-cold`)) continue;
      const peer = await Server.start(serverScript(compiled, ROOT, script), peerEnv);
      children.push(peer);
      if (SCENARIOS.has(name)) targets.push({ scenario: `${label}, cache-hot`, child: peer, load: hot });
      if (SCENARIOS.has(`${name}-cold`)) targets.push({ scenario: `${label}, cache-cold`, child: peer, load: cold });
    }
    ({ problems: answerProblems, serviceOnly } = await sameAnswer(targets, hotKey));
    for (const problem of answerProblems) process.stdout.write(`  DIFFERENT ANSWER: ${problem}\n`);
    // Every measured run starts from the seeded Redis, not the records of the runs before it (bench/record-cleanup.ts).
    const betweenRuns = CLEAR_RECORDS ? async () => { await clearRecords(redis, prefix); } : async () => undefined;
    runs = await measureAll(targets, counterClient, betweenRuns);
    if (hotService && SCENARIOS.has('exact')) {
      // Three times the budget at full concurrency, well inside one window: exactly the budget must pass.
      const result = await autocannon({
        url: `http://127.0.0.1:${hotService.port}${PATH}`, connections: CONNECTIONS, amount: 3 * EXACT_BUDGET,
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
    if (!privateRedis) await deleteByPrefix(redis, prefix);
    redis.disconnect();
    counterClient?.disconnect();
    await privateRedis?.stop();
  }

  const rows = summarise(runs);
  const goals = issueGoals(runs, {
    raw: RAW, hot: HOT, cold: COLD, naive: `${PEERS[0][2]}, cache-hot`, fastify: `${PEERS[1][2]}, cache-hot`, floor: FLOOR, rawVerdict: RAW_VERDICT,
  });
  const exactLine = exact
    ? `Budget exactness: budget ${exact.budget}, ${3 * exact.budget} requests at ${CONNECTIONS} connections → `
      + `${exact.admitted} × 200, ${exact.limited} × 429, ${exact.other} other: ${exact.ok ? '**exact**' : '**NOT EXACT**'}`
    : 'Budget exactness: not run';
  const markdown = [
    `Run ${new Date().toISOString()}, Node ${process.version}, ${CPUS} CPUs: ${header}.`,
    '',
    markdownTable(rows),
    '',
    exactLine,
    answerProblems.length === 0
      ? `Same answer check: every server gave the same status, headers and verdict fields${COMPARED_FIELDS.includes('evidence') ? ', evidence included' : ''}${serviceOnly.length > 0 ? ` (fields only some servers return, not compared: ${serviceOnly.join(', ')})` : ''}.`
      : `Same answer check FAILED:\n${answerProblems.join('\n')}`,
    '',
    goalsTable(goals),
    '',
  ].join('\n');
  process.stdout.write(`\n${markdown}`);
  const stem = env.BENCH_OUT ? new URL(env.BENCH_OUT, `file://${process.cwd()}/`) : new URL(`http-load-${new Date().toISOString().replace(/[:.]/g, '-')}`, OUT_DIR);
  mkdirSync(new URL('.', stem), { recursive: true });
  writeFileSync(`${stem.pathname}.md`, markdown);
  writeFileSync(`${stem.pathname}.json`, `${JSON.stringify({
    at: new Date().toISOString(), node: process.version, cpus: CPUS, connections: CONNECTIONS, durationSeconds: DURATION,
    repeat: REPEAT, tool: TOOL, pinned: PIN, privateRedis: PRIVATE_REDIS, logLevel: LOG_LEVEL, peerRecords: PEER_RECORDS === '1', peerEvidence: PEER_EVIDENCE === '1', clearRecords: CLEAR_RECORDS,
    rows: rows.map(({ scenario, median, ratio, cpuRange, cpuToRaw, cpuMedian }) => ({ scenario, ratio, cpuRange, cpuToRaw, cpuMedian, median })), runs, exact, answerProblems, serviceOnly, goals,
  }, null, 2)}\n`);
  process.stdout.write(`results: ${stem.pathname}.md and .json\n`);
  if ((exact && !exact.ok) || answerProblems.length > 0) process.exitCode = 1;
}

await main();
