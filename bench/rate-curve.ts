// What a request costs by the rate a process serves, from one run of the HTTP load bench (bench/http-load.ts) per
// offered rate. At saturation a Redis turn carries dozens of checks and every wake-up serves many requests; at the
// rates a pod serves on a load board it carries a few, and a check costs 2–4× its saturated CPU
// (bench/README.md). Pods and Redis are sized from this curve, not from the saturated
// figure (k8s/README.md).
//
//   npm run bench:rate-curve                                      # raw,floor,hot at 5000,10000,20000 and saturated
//   BENCH_RATES=2500,5000,max BENCH_SCENARIOS=raw,hot,cold npm run bench:rate-curve
//
// BENCH_RATES: offered checks/s per run, comma-separated; `max` is a run with no rate (as many as the connections
// carry). Every other BENCH_* knob goes to each run unchanged; this script's defaults, where unset:
// BENCH_SCENARIOS=raw,floor,hot, BENCH_REPEAT=2, BENCH_DURATION=5, BENCH_FRESH_PROCESSES=1. Prints one table (rows
// by scenario, then rate) and writes it to .bench-out/rate-curve-<time>.md; each run's own results stay beside it.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { FLOOR } from './scenario-labels.js';

/** One server's median round in one bench run, as http-load.ts writes it to the JSON's `rows`. */
const BenchRow = z.object({
  scenario: z.string(),
  cpuMedian: z.number(),
  median: z.object({
    requestsPerSecond: z.number(),
    p50Ms: z.number(),
    p99Ms: z.number(),
    systemMicrosPerRequest: z.number().nullable(),
    callsPerRequest: z.record(z.string(), z.number()),
    redisCpuMicrosPerRequest: z.number().nullable(),
  }),
});
export type BenchRow = z.infer<typeof BenchRow>;
const BenchResults = z.object({ rows: z.array(BenchRow) });

/** One bench run at one offered rate (null: saturated, no rate). */
export interface RatePoint {
  rate: number | null;
  rows: readonly BenchRow[];
}

const fixed = (value: number, digits: number) => value.toFixed(digits);
const rateLabel = (rate: number | null) => (rate === null ? 'saturated' : rate.toLocaleString('en-US'));
const callsPerRequest = (row: BenchRow) => Object.values(row.median.callsPerRequest).reduce((sum, calls) => sum + calls, 0);

/**
 * The curve as a markdown table: per scenario, a row per rate (ascending, saturated last) with what was served,
 * its CPU per request (kernel part), that ÷ the scenario's saturated CPU and ÷ the floor's at the same rate (when
 * those were measured), latency, Redis calls sent and Redis' CPU per request.
 */
export function rateCurveTable(points: readonly RatePoint[]): string {
  const ordered = [...points].sort((a, b) => (a.rate ?? Infinity) - (b.rate ?? Infinity));
  const saturated = ordered.find((point) => point.rate === null);
  const scenarios = [...new Set(ordered.flatMap((point) => point.rows.map((row) => row.scenario)))];
  const lines = [
    '| server, scenario | offered req/s | served req/s | CPU µs/req (kernel) | ÷ its saturated CPU | ÷ the floor\'s CPU | p50, p99 ms | Redis calls/req sent | Redis CPU µs/req |',
    '|---|---:|---:|---:|---:|---:|---|---:|---:|',
  ];
  for (const scenario of scenarios) {
    const atSaturation = saturated?.rows.find((row) => row.scenario === scenario);
    for (const point of ordered) {
      const row = point.rows.find((candidate) => candidate.scenario === scenario);
      if (row === undefined) continue;
      const floor = point.rows.find((candidate) => candidate.scenario === FLOOR);
      const { median } = row;
      lines.push(`| ${[
        scenario,
        rateLabel(point.rate),
        Math.round(median.requestsPerSecond).toLocaleString('en-US'),
        `${fixed(row.cpuMedian, 1)}${median.systemMicrosPerRequest === null ? '' : ` (${fixed(median.systemMicrosPerRequest, 1)})`}`,
        atSaturation ? `${fixed(row.cpuMedian / atSaturation.cpuMedian, 2)}×` : '—',
        floor && scenario !== FLOOR ? `${fixed(row.cpuMedian / floor.cpuMedian, 2)}×` : '—',
        `${fixed(median.p50Ms, 2)}, ${fixed(median.p99Ms, 2)}`,
        fixed(callsPerRequest(row), 3),
        median.redisCpuMicrosPerRequest === null ? '—' : fixed(median.redisCpuMicrosPerRequest, 1),
      ].join(' | ')} |`);
    }
  }
  return lines.join('\n');
}

/** BENCH_RATES as rates (null for `max`); throws on anything else, before any run starts. */
export function parseRates(text: string): Array<number | null> {
  return text.split(',').map((part) => {
    const trimmed = part.trim();
    if (trimmed === 'max') return null;
    const rate = Number(trimmed);
    if (!Number.isInteger(rate) || rate <= 0) throw new Error(`BENCH_RATES: "${trimmed}" is neither a positive whole rate nor max`);
    return rate;
  });
}

function main(): void {
  const rates = parseRates(process.env.BENCH_RATES ?? '5000,10000,20000,max');
  const root = fileURLToPath(new URL('..', import.meta.url));
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  mkdirSync(`${root}.bench-out`, { recursive: true });
  const points: RatePoint[] = [];
  for (const rate of rates) {
    const stem = `.bench-out/rate-curve-${stamp}-${rate ?? 'max'}`;
    const env: NodeJS.ProcessEnv = {
      BENCH_SCENARIOS: 'raw,floor,hot', BENCH_REPEAT: '2', BENCH_DURATION: '5', BENCH_FRESH_PROCESSES: '1',
      ...process.env,
      BENCH_OUT: stem,
    };
    if (rate === null) delete env.BENCH_RATE;
    else env.BENCH_RATE = String(rate);
    process.stdout.write(`rate-curve: ${rateLabel(rate)} offered (${stem}.md)\n`);
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'bench/http-load.ts'], { cwd: root, env, stdio: ['ignore', 'ignore', 'inherit'] });
    if (run.status !== 0) throw new Error(`rate-curve: the bench at ${rateLabel(rate)} exited with ${run.status ?? run.signal}`);
    points.push({ rate, rows: BenchResults.parse(JSON.parse(readFileSync(`${root}${stem}.json`, 'utf8'))).rows });
  }
  const table = rateCurveTable(points);
  writeFileSync(`${root}.bench-out/rate-curve-${stamp}.md`, `${table}\n`);
  process.stdout.write(`\n${table}\n\nresults: .bench-out/rate-curve-${stamp}.md\n`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
