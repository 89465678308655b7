// Instructions per request of the service process under valgrind's callgrind: the single check cache-hot and
// cache-cold, and for an account with a policy, a conditional carrier, and accounts with one and with 1,000 active
// overrides, for this checkout and any others (BENCH_TREES) in one run. Wall-clock CPU per request moves ±15 %
// between rounds on a shared machine; an instruction count of the same work moves a few per cent, whatever the
// neighbours do, so a before/after of a few per cent is readable here when the HTTP load bench cannot resolve it.
//
// Usage: BENCH_TREES=main=.,before=/tmp/before node --import tsx bench/instructions.ts
//   (a tree: `git archive <commit> | tar -x -C DIR && ln -s $PWD/node_modules DIR/`)
// Knobs: BENCH_TREES (label=dir,…; default this=.), BENCH_SCENARIOS (hot,cold,policy,review,override,override-1000),
// BENCH_REQUESTS (2000 per measured run), BENCH_WARMUP_REQUESTS (6000 per scenario before the first round; 1000
// before the others), BENCH_ROUNDS (3), BENCH_CONNECTIONS (8), BENCH_CARRIERS (20000), BENCH_K8S_NODE_OPTIONS (1),
// BENCH_SEED_FEATURES (0: no policy or override accounts, for a fair A/B with older trees),
// BENCH_OUT (file stem; default .bench-out/instructions-<time>), BENCH_CALLGRIND_DIR (the dumps; default .bench-out/callgrind, one per
// concurrent run).
//
// How: each tree is compiled as production runs it (tsc -p bench/tsconfig.bench.json) and seeded with its own code
// (bench/instructions-seed.ts) under its own prefix of one private Redis; its bench/serve.js then runs as
// `valgrind --tool=callgrind … node …` with the API pods' Node options and LOG_LEVEL=info (the access line is
// written), CARRIER_CACHE_MAX=1000. Per round and scenario: a warm-up, the counters zeroed (callgrind_control), a
// fixed number of requests over BENCH_CONNECTIONS keep-alive connections, the counters dumped; the dump's totals ÷
// the responses is the run's instructions per request, for the whole process and for its main thread.
// What it counts: user-space instructions of the server process (JS, uWS, ioredis, GC), not the kernel's socket
// work nor what an instruction costs (cache misses). Work done per event-loop turn (a record write, a budget draw)
// is shared by the requests of that turn, and at valgrind's speed a turn carries fewer of them than at full speed:
// compare rows of one run, not with the HTTP load bench's µs.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { createRequire } from 'node:module';
import { PrivateRedis } from '../test/helpers/private-redis.js';
import { apiNodeOptions } from './api-node-options.js';
import { median } from './goals.js';

const env = process.env;
const require = createRequire(import.meta.url);
const ROOT = new URL('../', import.meta.url).pathname.replace(/\/$/, '');
const TREES = (env.BENCH_TREES ?? 'this=.').split(',').map((entry) => {
  const [label = '', dir = ''] = entry.split('=');
  if (!label || !dir) throw new Error(`BENCH_TREES: "${entry}" is not label=dir`);
  return { label, root: dir === '.' ? ROOT : dir.replace(/\/$/, '') };
});
const SCENARIOS = (env.BENCH_SCENARIOS ?? 'hot,cold,policy,review,override,override-1000').split(',');
const REQUESTS = Number(env.BENCH_REQUESTS ?? 2000);
const WARMUP = Number(env.BENCH_WARMUP_REQUESTS ?? 6000);
const ROUNDS = Math.max(1, Number(env.BENCH_ROUNDS ?? 3));
const CONNECTIONS = Number(env.BENCH_CONNECTIONS ?? 8);
const CARRIERS = Number(env.BENCH_CARRIERS ?? 20_000);
const OUT = env.BENCH_OUT ?? `${ROOT}/.bench-out/instructions-${new Date().toISOString().replace(/[:.]/g, '-')}`;
const DUMPS = env.BENCH_CALLGRIND_DIR ?? `${ROOT}/.bench-out/callgrind`;
const HOT_MC = '100001';
const REVIEW_MC = '900000';

/** Which key and MC numbers a scenario sends (keys from the seed: plain, policy, override, override1000). */
const SCENARIO_LOAD: Record<string, { key: string; mc: (index: number) => string; what: string }> = {
  hot: { key: 'plain', mc: () => HOT_MC, what: 'cache-hot: one clean carrier, an account without policy or overrides' },
  cold: { key: 'plain', mc: (index) => String(100_000 + coldOffset(index)), what: `cache-cold: random MC numbers over ${CARRIERS * 10} (1 in 10 a carrier), CARRIER_CACHE_MAX=1000` },
  policy: { key: 'policy', mc: () => HOT_MC, what: 'cache-hot, the same carrier for an account with a published policy' },
  review: { key: 'plain', mc: () => REVIEW_MC, what: 'cache-hot, a conditional carrier (mcs150_outdated), an account without overrides' },
  override: { key: 'override', mc: () => REVIEW_MC, what: 'the same carrier for an account with one active override covering it' },
  'override-1000': { key: 'override1000', mc: () => REVIEW_MC, what: 'the same, the account holding 1,000 active overrides (one per carrier)' },
};

/** A fixed pseudo-random sequence (xorshift), so every tree and round is sent the same cold MC numbers. */
function coldOffset(index: number): number {
  let x = (index + 1) * 2_654_435_761;
  x ^= x << 13;
  x ^= x >>> 17;
  x ^= x << 5;
  return (x >>> 0) % (CARRIERS * 10);
}

function compile(root: string): string {
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', `${root}/bench/tsconfig.bench.json`], { cwd: root, stdio: 'inherit' });
  execFileSync(process.execPath, [`${root}/scripts/build-assets.mjs`, `${root}/.bench-out/dist`], { cwd: root, stdio: 'inherit' });
  return `${root}/.bench-out/dist`;
}

function seed(root: string, redisUrl: string, prefix: string): Record<string, string> {
  const out = execFileSync(process.execPath, ['--import', 'tsx', `${ROOT}/bench/instructions-seed.ts`, root, redisUrl, prefix, String(CARRIERS)], {
    cwd: ROOT, env: { ...env, REDIS_URL: redisUrl }, stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 20,
  }).toString('utf8').trim().split('\n').at(-1) ?? '{}';
  return JSON.parse(out) as Record<string, string>;
}

interface Server { child: ChildProcess; pid: number; port: number; env: NodeJS.ProcessEnv }

function startUnderCallgrind(dist: string, root: string, serverEnv: NodeJS.ProcessEnv): Promise<Server> {
  mkdirSync(DUMPS, { recursive: true });
  const args = [
    '--tool=callgrind', '--quiet', `--callgrind-out-file=${DUMPS}/callgrind.%p`,
    // A file per thread and dump (`callgrind.PID.N-TT`, thread 01 the main one); totals only, self-contained.
    '--separate-threads=yes', '--dump-instr=no', '--compress-strings=no', '--compress-pos=no',
    process.execPath, ...apiNodeOptions(root), `${dist}/bench/serve.js`,
  ];
  const child = spawn('valgrind', args, { env: serverEnv, stdio: ['ignore', openSync('/dev/null', 'w'), 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the server under valgrind did not start within 10 minutes')), 600_000);
    child.once('exit', (code) => reject(new Error(`the server under valgrind exited early (${code})`)));
    child.once('message', (message) => {
      clearTimeout(timer);
      const { port } = message as { port: number };
      resolve({ child, pid: child.pid ?? -1, port, env: serverEnv });
    });
  });
}

function stopServer(server: Server): Promise<void> {
  return new Promise((done) => {
    const timer = setTimeout(() => server.child.kill('SIGKILL'), 30_000);
    server.child.removeAllListeners('exit');
    server.child.once('exit', () => {
      clearTimeout(timer);
      done();
    });
    server.child.send('stop');
  });
}

/** callgrind_control finds the process through vgdb by names made from its environment (HOST, USER): run with it. */
function control(command: '--zero' | '--dump', server: Server): void {
  execFileSync('callgrind_control', [command, String(server.pid)], { stdio: 'ignore', env: server.env });
}

interface Count { total: number; mainThread: number }

/** Dumps the counters (one file per thread) and returns what they counted since zeroed. */
async function dump(server: Server): Promise<Count> {
  const mine = () => readdirSync(DUMPS).filter((name) => name.startsWith(`callgrind.${server.pid}.`));
  const before = new Set(mine());
  control('--dump', server);
  let seen = '';
  for (let waited = 0; waited < 300_000; waited += 500) {
    const fresh = mine().filter((name) => !before.has(name)).sort();
    let total = 0;
    let mainThread: number | null = null;
    let complete = fresh.length > 0;
    for (const name of fresh) {
      // A file is complete once its `totals:` line is written.
      const totals = /^totals:\s+(\d+)/m.exec(readFileSync(`${DUMPS}/${name}`, 'utf8'))?.[1];
      if (totals === undefined) complete = false;
      total += Number(totals ?? 0);
      if (name.endsWith('-01')) mainThread = Number(totals ?? 0);
    }
    if (complete && mainThread !== null && fresh.join() === seen) return { total, mainThread };
    seen = fresh.join();
    await new Promise((resume) => setTimeout(resume, 500));
  }
  throw new Error(`no complete callgrind dump of process ${server.pid} within 300 s`);
}

interface Summary { eligible: unknown; tier: unknown; reasons: unknown; degraded: unknown; policy_version: unknown; overrides: number }
interface Loaded { first: Summary | null; degraded: number }

/** Sends `count` checks over CONNECTIONS keep-alive connections; every answer must be a 200. The first verdict's summary. */
async function load(port: number, apiKey: string, mcOf: (index: number) => string, count: number, offset: number): Promise<Loaded> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  let next = 0;
  let first: Summary | null = null;
  let degraded = 0;
  const one = (index: number) => new Promise<void>((resolve, reject) => {
    const body = JSON.stringify({ mc_number: mcOf(offset + index) });
    const req = request({
      host: '127.0.0.1', port, method: 'POST', path: '/v1/eligibility', agent,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'x-api-key': apiKey },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        if (res.statusCode !== 200) {
          reject(new Error(`answer ${res.statusCode}: ${Buffer.concat(chunks).toString('utf8').slice(0, 300)}`));
          return;
        }
        const text = Buffer.concat(chunks).toString('utf8');
        if (text.includes('"degraded":true')) degraded += 1;
        if (first === null) {
          const verdict = JSON.parse(text) as Record<string, unknown>;
          first = {
            eligible: verdict.eligible, tier: verdict.tier, reasons: verdict.reasons, degraded: verdict.degraded,
            policy_version: verdict.policy_version, overrides: Array.isArray(verdict.overrides) ? verdict.overrides.length : 0,
          };
        }
        resolve();
      });
    });
    req.on('error', reject);
    req.end(body);
  });
  await Promise.all(Array.from({ length: CONNECTIONS }, async () => {
    while (next < count) await one(next++);
  }));
  agent.destroy();
  return { first, degraded };
}

interface Row { tree: string; scenario: string; perRequest: number[]; mainPerRequest: number[]; verdict: Summary | null; degraded: number }

async function measureTree(tree: { label: string; root: string }, redisUrl: string, index: number, rows: Row[]): Promise<void> {
  process.stdout.write(`${tree.label}: compiling ${tree.root}\n`);
  const dist = compile(tree.root);
  const prefix = `ins${index}:`;
  const started = Date.now();
  const keys = seed(tree.root, redisUrl, prefix);
  process.stdout.write(`${tree.label}: seeded ${CARRIERS} + 1000 carriers and accounts ${Object.keys(keys).join(', ')} in ${Date.now() - started} ms\n`);
  const scenarios = SCENARIOS.filter((scenario) => {
    const known = SCENARIO_LOAD[scenario];
    if (!known) throw new Error(`BENCH_SCENARIOS: unknown scenario ${scenario}`);
    return keys[known.key] !== undefined;
  });
  const server = await startUnderCallgrind(dist, tree.root, {
    // Under valgrind the service runs ~50x slower, and so does its side of each Redis reply: a longer command
    // timeout keeps its answers whole (a timed-out read would be counted as a cheap degraded answer).
    ...env, REDIS_URL: redisUrl, REDIS_PREFIX: prefix, PORT: '0', HOST: '127.0.0.1', ROLE: 'api', LOG_LEVEL: 'info', CARRIER_CACHE_MAX: '1000',
    REDIS_COMMAND_TIMEOUT_MS: '5000',
  });
  try {
    const byScenario = new Map(scenarios.map((scenario) => [scenario, { tree: tree.label, scenario, perRequest: [] as number[], mainPerRequest: [] as number[], verdict: null as Summary | null, degraded: 0 }]));
    let sent = 0;
    for (let round = 0; round < ROUNDS; round++) {
      for (const scenario of scenarios) {
        const spec = SCENARIO_LOAD[scenario];
        const row = byScenario.get(scenario);
        const apiKey = spec ? keys[spec.key] : undefined;
        if (!spec || !row || apiKey === undefined) continue;
        await load(server.port, apiKey, spec.mc, round === 0 ? WARMUP : 1000, sent);
        sent += round === 0 ? WARMUP : 1000;
        control('--zero', server);
        const measured = await load(server.port, apiKey, spec.mc, REQUESTS, sent);
        row.verdict ??= measured.first;
        row.degraded += measured.degraded;
        sent += REQUESTS;
        const count = await dump(server);
        row.perRequest.push(count.total / REQUESTS);
        row.mainPerRequest.push(count.mainThread / REQUESTS);
        process.stdout.write(`${tree.label} ${scenario} round ${round + 1}: ${Math.round(count.mainThread / REQUESTS)} main-thread instructions/request (all threads ${Math.round(count.total / REQUESTS)})\n`);
      }
    }
    rows.push(...byScenario.values());
  } finally {
    await stopServer(server);
    rmSync(DUMPS, { recursive: true, force: true });
  }
}

const thousands = (value: number | null) => (value === null ? '' : Math.round(value).toLocaleString('en-US'));
const spread = (values: number[]) => `${thousands(Math.min(...values))}–${thousands(Math.max(...values))}`;

function table(rows: Row[]): string {
  const lines = [
    '| scenario | tree | main thread instr./request (median; min–max) | all threads | verdict |',
    '|---|---|---:|---:|---|',
  ];
  for (const scenario of SCENARIOS) {
    for (const row of rows.filter((entry) => entry.scenario === scenario)) {
      const verdict = row.verdict;
      const said = (row.degraded > 0 ? `${row.degraded} degraded answers! ` : '') + (verdict ? `${String(verdict.tier)}${verdict.degraded ? ' (degraded)' : ''} ${JSON.stringify(verdict.reasons)}${verdict.policy_version ? ` policy v${String(verdict.policy_version)}` : ''}${verdict.overrides ? ` overrides ${verdict.overrides}` : ''}` : '');
      lines.push(`| ${scenario} | ${row.tree} | ${thousands(median(row.mainPerRequest))}; ${spread(row.mainPerRequest)} | ${thousands(median(row.perRequest))}; ${spread(row.perRequest)} | ${said} |`);
    }
  }
  return lines.join('\n');
}

const redis = await PrivateRedis.start();
const rows: Row[] = [];
try {
  for (const [index, tree] of TREES.entries()) await measureTree(tree, redis.url, index, rows);
} finally {
  await redis.stop();
}
const text = [
  `# Instructions per request (callgrind), ${new Date().toISOString()}`,
  '',
  `Trees: ${TREES.map((tree) => `${tree.label} = ${tree.root}`).join('; ')}. ${ROUNDS} rounds of ${REQUESTS} requests per scenario over ${CONNECTIONS} connections.`,
  '',
  ...SCENARIOS.map((scenario) => `- ${scenario}: ${SCENARIO_LOAD[scenario]?.what ?? ''}`),
  '',
  table(rows),
  '',
].join('\n');
mkdirSync(`${ROOT}/.bench-out`, { recursive: true });
writeFileSync(`${OUT}.md`, text);
writeFileSync(`${OUT}.json`, `${JSON.stringify(rows, null, 2)}\n`);
process.stdout.write(`\n${text}\nwritten to ${OUT}.md and .json\n`);
