// Fits the cache-hot check's CPU per request against raw uWS' over the VM instances bench/README.md lists
// ("The same code on … instances of the VM", in the section where issue 10 closed): check ≈ slope × raw + intercept, by least squares.
// The ratio goal (check ≤ 2× raw) asks whether the check scales with the instance at raw uWS' rate; the fit says
// it scales a little faster plus a fixed part (round 31 in bench/HISTORY.md), and how much a check would have to
// shed on an instance of a given raw price.
//
//   node --import tsx bench/instance-fit.ts [bench/README.md] [raw µs to price the goal at, default: the instances' median]
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { median } from './goals.js';

export interface InstanceRow {
  instance: string;
  /** Raw uWS' CPU µs per request, the closing run's median. */
  rawMicros: number;
  /** The cache-hot check's CPU per request ÷ raw uWS', the closing run's median of rounds. */
  hotToRaw: number;
}

export interface LineFit {
  slope: number;
  intercept: number;
  /** Share of the check's variance across instances the line explains. */
  rSquared: number;
  /** Root-mean-square residual, µs. */
  rmsResidual: number;
}

/**
 * The instances table's rows: `| ninth (19, 00:26) | 8.6; 6.7; 2.2 | 2.28×; 0.44; 5.7 | …`. Only that table has a
 * first cell naming a round and the time it ended, so the file's other tables are skipped.
 */
export function parseInstanceRows(markdown: string): InstanceRow[] {
  // A cell whose goals were met is bold (`**1.91×; 0.53; 3.0**`), so the ratio may follow `**`.
  const row = /^\| ([a-z-]+ \(\d+, \d\d:\d\d\)) \| ([\d.]+); [\d.]+; [\d.]+ \| (?:\*\*)?([\d.]+)×;/;
  const rows: InstanceRow[] = [];
  for (const line of markdown.split('\n')) {
    const match = row.exec(line);
    if (match !== null) rows.push({ instance: match[1] as string, rawMicros: Number(match[2]), hotToRaw: Number(match[3]) });
  }
  return rows;
}

/** Ordinary least squares of y on x; needs two distinct x values. */
export function fitLine(points: readonly { x: number; y: number }[]): LineFit {
  const n = points.length;
  const meanX = points.reduce((sum, p) => sum + p.x, 0) / n;
  const meanY = points.reduce((sum, p) => sum + p.y, 0) / n;
  let sxx = 0;
  let sxy = 0;
  let syy = 0;
  for (const { x, y } of points) {
    sxx += (x - meanX) ** 2;
    sxy += (x - meanX) * (y - meanY);
    syy += (y - meanY) ** 2;
  }
  if (n < 2 || sxx === 0) throw new Error('fitLine needs at least two points with different x');
  const slope = sxy / sxx;
  const intercept = meanY - slope * meanX;
  const residuals = points.reduce((sum, { x, y }) => sum + (y - (slope * x + intercept)) ** 2, 0);
  return { slope, intercept, rSquared: syy === 0 ? 1 : 1 - residuals / syy, rmsResidual: Math.sqrt(residuals / n) };
}

/** µs a check would have to shed, on an instance whose raw uWS costs `rawMicros`, to be at `ratio` × raw. */
export function excessOverRatio(fit: LineFit, rawMicros: number, ratio: number): number {
  return fit.slope * rawMicros + fit.intercept - ratio * rawMicros;
}

function main(): void {
  const [path = 'bench/README.md', priceAt] = process.argv.slice(2);
  const rows = parseInstanceRows(readFileSync(path, 'utf8'));
  const fit = fitLine(rows.map((row) => ({ x: row.rawMicros, y: row.rawMicros * row.hotToRaw })));
  const raws = rows.map((row) => row.rawMicros).sort((a, b) => a - b);
  const raw = priceAt === undefined ? (median(raws) as number) : Number(priceAt);
  const excess = excessOverRatio(fit, raw, 2);
  const fmt = (value: number, digits = 2) => value.toFixed(digits);
  console.log(`${rows.length} instances (${rows[0]?.instance} … ${rows.at(-1)?.instance}), raw uWS ${raws[0]}–${raws.at(-1)} µs per request`);
  console.log(`cache-hot CPU per request ≈ ${fmt(fit.slope)} × raw + ${fmt(fit.intercept)} µs  (R² ${fmt(fit.rSquared, 3)}, rms residual ${fmt(fit.rmsResidual)} µs)`);
  console.log(`at raw ${raw} µs: the fit says ${fmt(fit.slope * raw + fit.intercept, 1)} µs; ≤ 2× raw needs ${fmt(excess, 1)} µs (${fmt((100 * excess) / (fit.slope * raw + fit.intercept), 0)} %) off a check`);
}

// Run as a script, not when a test imports the fit.
if (process.argv[1] === fileURLToPath(import.meta.url)) main();
