// The latency a service measured itself, from its access lines: what part of the p99 wrk reports happens inside
// the server. Each access line's `duration_ms` runs from the adapter's first line for the request to the answer
// written (src/http/uws.ts), so it leaves out the time a request waits in its socket for the turn in progress and
// the time wrk takes to read the answer; wrk's p99 minus this one is that queueing plus the load generator's own
// waits (round 35 in bench/HISTORY.md).
//
//   BENCH_STDOUT=/tmp/out.ndjson BENCH_SCENARIOS=cold BENCH_REPEAT=1 BENCH_DURATION=5 npm run bench
//   node --import tsx bench/access-latency.ts /tmp/out.ndjson [--last 5] [--window 100]
//
// Run one service scenario per file: every server of a run writes to the same BENCH_STDOUT. `--last` keeps the
// lines of the last N seconds of the file (the measured run; the warm-up comes before it), `--window` cuts those
// into windows and lists the ones whose slowest answer took over three times the p99: stops of the whole process.
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

export interface AccessSample {
  /** The line's `time`, epoch milliseconds. */
  atMs: number;
  durationMs: number;
}

/** An access line's time and duration; null for any other line (trace output, other log lines, torn lines). */
export function parseAccessLine(line: string): AccessSample | null {
  if (!line.includes('"msg":"request"')) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null) return null;
  const { time, duration_ms: durationMs } = parsed as { time?: unknown; duration_ms?: unknown };
  const atMs = typeof time === 'string' ? Date.parse(time) : Number.NaN;
  return Number.isFinite(atMs) && typeof durationMs === 'number' ? { atMs, durationMs } : null;
}

/** The nearest-rank percentile (q in (0, 1]) of ascending values. */
export function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] as number;
}

export interface LatencyWindow {
  /** Milliseconds from the start of the span kept. */
  offsetMs: number;
  count: number;
  p99: number;
  max: number;
}

export interface LatencySummary {
  count: number;
  p50: number;
  p90: number;
  p99: number;
  p999: number;
  max: number;
  windows: LatencyWindow[];
}

/** Percentiles of the samples in the last `lastMs` before the latest one, and the same per `windowMs` window. */
export function summariseLatency(samples: readonly AccessSample[], lastMs: number, windowMs: number): LatencySummary {
  const end = samples.reduce((latest, sample) => Math.max(latest, sample.atMs), Number.NEGATIVE_INFINITY);
  const start = end - lastMs;
  const kept = samples.filter((sample) => sample.atMs > start);
  const byWindow = new Map<number, number[]>();
  for (const { atMs, durationMs } of kept) {
    const index = Math.floor((atMs - start) / windowMs);
    const durations = byWindow.get(index);
    if (durations === undefined) byWindow.set(index, [durationMs]);
    else durations.push(durationMs);
  }
  const windows = [...byWindow].sort(([a], [b]) => a - b).map(([index, durations]) => {
    durations.sort((a, b) => a - b);
    return { offsetMs: index * windowMs, count: durations.length, p99: percentile(durations, 0.99), max: durations[durations.length - 1] as number };
  });
  const sorted = kept.map((sample) => sample.durationMs).sort((a, b) => a - b);
  return {
    count: sorted.length,
    p50: percentile(sorted, 0.5),
    p90: percentile(sorted, 0.9),
    p99: percentile(sorted, 0.99),
    p999: percentile(sorted, 0.999),
    max: sorted[sorted.length - 1] ?? Number.NaN,
    windows,
  };
}

async function readSamples(file: string): Promise<AccessSample[]> {
  const samples: AccessSample[] = [];
  // Line by line: a five-second cache-cold run writes ~170 MB of access lines.
  for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
    const sample = parseAccessLine(line);
    if (sample !== null) samples.push(sample);
  }
  return samples;
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { last: { type: 'string', default: '5' }, window: { type: 'string', default: '100' } },
  });
  const [file] = positionals;
  const lastSeconds = Number(values.last);
  const windowMs = Number(values.window);
  if (file === undefined || !(lastSeconds > 0) || !(windowMs > 0)) {
    throw new Error('usage: access-latency.ts FILE [--last SECONDS] [--window MS]');
  }
  const summary = summariseLatency(await readSamples(file), lastSeconds * 1000, windowMs);
  const ms = (value: number) => value.toFixed(2);
  process.stdout.write(`${summary.count} access lines in the last ${lastSeconds} s: duration_ms p50 ${ms(summary.p50)}, `
    + `p90 ${ms(summary.p90)}, p99 ${ms(summary.p99)}, p99.9 ${ms(summary.p999)}, max ${ms(summary.max)}\n`);
  const perWindowP99 = summary.windows.map((window) => window.p99).sort((a, b) => a - b);
  process.stdout.write(`per ${windowMs}-ms window: p99 ${ms(perWindowP99[0] ?? Number.NaN)}–${ms(perWindowP99[perWindowP99.length - 1] ?? Number.NaN)}`
    + ` (median ${ms(percentile(perWindowP99, 0.5))})\n`);
  const stops = summary.windows.filter((window) => window.max > 3 * summary.p99);
  for (const window of stops) {
    process.stdout.write(`  window at +${window.offsetMs} ms: ${window.count} answers, slowest ${ms(window.max)} ms (over 3 × the p99: a stop)\n`);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
