// A small timing harness for the micro-benchmarks in this folder. No dependency: warm up, then a number of
// samples of a fixed batch of calls; the median sample is the figure, min–max shows the noise. Results land in
// a markdown table (printed) and JSON (.bench-out/micro-<time>.json), and bench/README.md keeps the last table.
// Numbers are ns per call on one core of the machine that ran it; compare them only with a run of the same
// machine in the same window (a shared 2-vCPU VM moves them by ±20 %).
import { mkdirSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

export interface MicroResult {
  name: string;
  nsPerOp: number;
  minNs: number;
  maxNs: number;
  /** What the row measures, when the name alone does not say. */
  note?: string;
}

/** Keeps results alive so the JIT cannot drop the measured work. */
export let sink: unknown = null;

export function measure(name: string, fn: () => unknown, options: { batch?: number; samples?: number; note?: string } = {}): MicroResult {
  const batch = options.batch ?? 20_000;
  const samples = options.samples ?? 15;
  for (let i = 0; i < batch * 2; i += 1) sink = fn();
  const times: number[] = [];
  for (let sample = 0; sample < samples; sample += 1) {
    const started = process.hrtime.bigint();
    for (let i = 0; i < batch; i += 1) sink = fn();
    times.push(Number(process.hrtime.bigint() - started) / batch);
  }
  times.sort((a, b) => a - b);
  const result: MicroResult = {
    name, nsPerOp: times[Math.floor(times.length / 2)] as number, minNs: times[0] as number, maxNs: times[times.length - 1] as number,
  };
  if (options.note) result.note = options.note;
  process.stdout.write(`  ${name.padEnd(58)} ${result.nsPerOp.toFixed(0).padStart(7)} ns/op\n`);
  return result;
}

export function report(title: string, results: MicroResult[]): void {
  const table = [
    `| ${title} | ns/call (median) | min–max over samples | note |`,
    '|---|---:|---:|---|',
    ...results.map((r) => `| ${r.name} | ${r.nsPerOp.toFixed(0)} | ${r.minNs.toFixed(0)}–${r.maxNs.toFixed(0)} | ${r.note ?? ''} |`),
  ].join('\n');
  process.stdout.write(`\n${table}\n`);
  // The checkout's .bench-out/ (npm runs scripts from the package root; this file runs compiled from below it).
  const dir = new URL('.bench-out/', pathToFileURL(`${process.cwd()}/`));
  mkdirSync(dir, { recursive: true });
  const file = new URL(`micro-${new Date().toISOString().replace(/[:.]/g, '-')}.json`, dir);
  writeFileSync(file, `${JSON.stringify({ at: new Date().toISOString(), node: process.version, title, results }, null, 2)}\n`);
  process.stdout.write(`results: ${file.pathname}\n`);
}
