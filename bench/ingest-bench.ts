// 1M-carrier ingest benchmark: generates synthetic files (once), runs the real CLI ingest as a child process
// into a throwaway key prefix, and records wall time, the child's peak RSS and Redis memory per carrier.
//   node --import tsx bench/ingest-bench.ts [--carriers 1000000] [--dir .bench-out/synthetic-1m] [--real-lists] [--heap-mb 384] [--compiled]
// --compiled runs the CLI as production does (compiled by tsc into dist/, no tsx in the process or its worker).
// --real-lists screens against the real OFAC SDN list (July 2021: 8,976 entries, 11,910 aliases, addresses) and the
// consolidated non-SDN list from test/fixtures instead of the synthetic OFAC files (the matcher's real workload).
// --heap-mb caps the ingest's V8 old space (0 = Node's default). Uncapped, V8 lets garbage pile up to ~630-720 MB
// RSS before collecting; capped at 384 MB the same run peaks at 389 MB RSS and takes ~25 % longer (measured
// 2026-11-23: 54.6 s / 633 MB uncapped vs 79 s / 389 MB capped, with the real lists). Production sets the cap
// through NODE_OPTIONS (k8s/cronjob-ingest.yaml), so the bench measures the same way.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { writeSyntheticFiles } from '../src/ingest/synthetic.js';
import { redisKeys } from '../src/store/keys.js';
import { readSnapshotStatus } from '../src/store/snapshot-status.js';

const { values } = parseArgs({ options: {
  carriers: { type: 'string', default: '1000000' }, dir: { type: 'string' }, 'real-lists': { type: 'boolean', default: false },
  'heap-mb': { type: 'string', default: '384' }, compiled: { type: 'boolean', default: false },
} });
const carriers = Number(values.carriers);
const dir = values.dir ?? `.bench-out/synthetic-${carriers}`;
const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `bench:${Date.now().toString(36)}:`;

if (!existsSync(`${dir}/census_az4n-8mr2.csv`)) {
  process.stderr.write(`generating ${carriers} synthetic carriers into ${dir}…\n`);
  await writeSyntheticFiles(dir, carriers);
}
const today = new Date().toISOString().slice(0, 10);
const redis = new Redis(url);
const usedMemory = async () => Number(/used_memory:(\d+)/.exec(await redis.info('memory'))?.[1]);
const before = await usedMemory();

const heapMb = Number(values['heap-mb']);
if (values.compiled) {
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
  execFileSync(process.execPath, ['scripts/build-assets.mjs'], { stdio: 'inherit' });
}
const cli = values.compiled ? ['dist/src/cli/main.js'] : ['--import', 'tsx', 'src/cli/main.ts'];
const args = [...(heapMb > 0 ? [`--max-old-space-size=${heapMb}`] : []), ...cli, 'ingest', '--census', `${dir}/census_az4n-8mr2.csv`,
  '--authority', `${dir}/li_carrier_legacy.txt`, '--insurance', `${dir}/li_actpendinsur_legacy.txt`,
  '--insurance-history', `${dir}/li_inshist_legacy.txt`, '--revocations', `${dir}/li_revocation_legacy.csv`,
  '--oos', `${dir}/oos_p2mt-9ige.csv`, '--sam', `${dir}/SAM_Exclusions_Public_V2.csv`, '--dnu', `${dir}/do_not_use.csv`,
  ...ofacFiles(values['real-lists']),
  // The legacy authority and insurance-history layouts and OFAC's CSVs carry no date of their own: the operator
  // (here: the generator, which wrote them today) states it, as the scheduled ingest does with the publisher's date.
  '--as-of-source', `authority=${today},insurance_history=${today},ofac_sdn=${today},ofac_cons=${today}`];

function ofacFiles(real: boolean | undefined): string[] {
  if (!real) return ['--ofac-sdn', `${dir}/sdn.csv`, '--ofac-alt', `${dir}/alt.csv`];
  const sdn = 'test/fixtures/real/ofac/sdn_2021-07';
  const cons = 'test/fixtures/real/ofac/cons_nonsdn';
  return ['--ofac-sdn', `${sdn}/sdn.csv`, '--ofac-alt', `${sdn}/alt.csv`, '--ofac-add', `${sdn}/add.csv`,
    '--ofac-cons', `${cons}/cons_prim.csv`, '--ofac-cons-alt', `${cons}/cons_alt.csv`, '--ofac-cons-add', `${cons}/cons_add.csv`];
}
// Load before the run: other work on a shared machine skews both numbers, so the result records it.
const loadBefore = loadavg()[0] ?? 0;
const started = Date.now();
const child = spawn(process.execPath, args, { env: { ...process.env, REDIS_URL: url, REDIS_PREFIX: prefix }, stdio: ['ignore', 'pipe', 'inherit'] });
let output = '';
child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString(); });
let peakRssKb = 0;
const sampler = setInterval(() => {
  readFile(`/proc/${child.pid}/status`, 'utf8')
    .then((status) => { peakRssKb = Math.max(peakRssKb, Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0)); })
    .catch(() => undefined);
}, 100);
const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
clearInterval(sampler);
const seconds = (Date.now() - started) / 1000;
const after = await usedMemory();
const status = await readSnapshotStatus(redis, redisKeys(prefix));
const count = status.meta?.carrier_count ?? 0;
const result = {
  carriers: count, exit_code: code, seconds, heap_cap_mb: heapMb > 0 ? heapMb : null, real_lists: values['real-lists'] ?? false, compiled: values.compiled ?? false, peak_rss_mb: Math.round(peakRssKb / 1024),
  redis_bytes_per_carrier: count > 0 ? Math.round((after - before) / count) : null,
  redis_used_memory_delta_mb: Math.round((after - before) / 1048576), measured_at: new Date().toISOString(),
  machine: { cpus: cpus().length, load_1m_before: Number(loadBefore.toFixed(2)), load_1m_after: Number((loadavg()[0] ?? 0).toFixed(2)), node: process.version },
  goals: { seconds: 120, peak_rss_mb: 500, redis_bytes_per_carrier: 300 },
};
process.stdout.write(`${output}\n${JSON.stringify(result, null, 2)}\n`);
await writeFile('.bench-out/ingest-bench.json', `${JSON.stringify(result, null, 2)}\n`);
// Remove the benchmark's keys (own prefix only).
for await (const batch of redis.scanStream({ match: `${prefix}*`, count: 1000 }) as AsyncIterable<string[]>) {
  if (batch.length > 0) await redis.unlink(...batch);
}
redis.disconnect();
