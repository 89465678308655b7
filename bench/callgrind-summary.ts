// Reads one callgrind dump of a bench server (BENCH_CALLGRIND=1, bench/callgrind.ts) by function: instructions
// spent in each function itself and how often it was called, per request when told how many the run answered.
// callgrind_annotate reads the same files but cannot name V8's JIT code; with the perf map that --perf-basic-prof
// writes (BENCH_NODE_ARGS=--perf-basic-prof), JIT functions get their JavaScript names here.
//
//   BENCH_NODE_ARGS=--perf-basic-prof BENCH_CALLGRIND=1 BENCH_SCENARIOS=hot BENCH_WARMUP=90 BENCH_DURATION=15 \
//     BENCH_REPEAT=1 npm run bench
//   node --import tsx bench/callgrind-summary.ts .bench-out/callgrind/callgrind.PID.1-01 --map /tmp/perf-PID.map \
//     --requests 13100 [--callers SUBSTRING] [--top 40]
//
// --requests: the run's responses (req/s × duration from the bench line). --callers: who calls the functions whose
// name contains SUBSTRING, with the instructions spent inside those calls (inclusive) and the number of calls.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { map: { type: 'string' }, requests: { type: 'string' }, callers: { type: 'string' }, top: { type: 'string', default: '40' } },
});
const file = positionals[0];
if (file === undefined) throw new Error('usage: callgrind-summary.ts DUMP [--map PERF_MAP] [--requests N] [--callers SUBSTRING] [--top N]');

/** JIT code ranges from a perf map; an address reused by later code takes the later entry's name. */
interface Symbol { start: number; end: number; name: string; order: number }
const symbols: Symbol[] = values.map === undefined ? [] : readFileSync(values.map, 'utf8').split('\n').filter(Boolean).map((line, order) => {
  const [start = '0', size = '0', ...name] = line.split(' ');
  return { start: Number.parseInt(start, 16), end: Number.parseInt(start, 16) + Number.parseInt(size, 16), name: name.join(' '), order };
}).sort((a, b) => a.start - b.start);

const named = new Map<string, string>();
function nameOf(raw: string): string {
  let name = named.get(raw);
  if (name !== undefined) return name;
  name = raw;
  const address = /^0x([0-9a-f]+)$/.exec(raw)?.[1];
  if (address !== undefined && symbols.length > 0) {
    const at = Number.parseInt(address, 16);
    let low = 0;
    let high = symbols.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if ((symbols[middle] as Symbol).start <= at) low = middle + 1;
      else high = middle;
    }
    let best: Symbol | undefined;
    // Ranges overlap where code was freed and its memory reused: look back over a few for the latest owner.
    for (let index = low - 1; index >= 0 && index >= low - 400; index -= 1) {
      const candidate = symbols[index] as Symbol;
      if (at < candidate.end && (best === undefined || candidate.order > best.order)) best = candidate;
    }
    if (best !== undefined) name = `JIT ${best.name}`;
  }
  named.set(raw, name);
  return name;
}

// The format (callgrind's "calltree" files): `fn=` opens a function, cost lines `<position> <Ir>` follow; `calls=N
// <target>` after a `cfn=` says the next cost line is the inclusive cost of N calls to cfn, not fn's own.
const self = new Map<string, number>();
const calls = new Map<string, number>();
const callers = new Map<string, { inclusive: number; calls: number }>();
let total = 0;
let fn = '';
let cfn = '';
let pendingCalls = -1;
for (const line of readFileSync(file, 'utf8').split('\n')) {
  if (line.startsWith('fn=')) fn = nameOf(line.slice(3));
  else if (line.startsWith('cfn=')) cfn = nameOf(line.slice(4));
  else if (line.startsWith('calls=')) pendingCalls = Number(line.slice(6).split(' ')[0]);
  else if (line.startsWith('totals:')) total = Number(line.slice(7).trim());
  else if (/^[0-9+*-]/.test(line)) {
    const cost = Number(line.split(' ')[1] ?? 0);
    if (pendingCalls >= 0) {
      calls.set(cfn, (calls.get(cfn) ?? 0) + pendingCalls);
      if (values.callers !== undefined && cfn.includes(values.callers)) {
        const key = `${fn}  →  ${cfn}`;
        const entry = callers.get(key) ?? { inclusive: 0, calls: 0 };
        entry.inclusive += cost;
        entry.calls += pendingCalls;
        callers.set(key, entry);
      }
      pendingCalls = -1;
    } else {
      self.set(fn, (self.get(fn) ?? 0) + cost);
    }
  }
}

const requests = values.requests === undefined ? null : Number(values.requests);
const perRequest = (count: number) => (requests === null ? '' : (count / requests).toFixed(count / requests < 10 ? 2 : 0).padStart(9));
const top = Number(values.top);
process.stdout.write(`${file}: ${total.toLocaleString('en-US')} instructions${requests === null ? '' : `, ${Math.round(total / requests).toLocaleString('en-US')} per request`}\n\n`);
process.stdout.write(`${'share'.padStart(6)} ${'self instr'.padStart(13)}${requests === null ? '' : ' per req  calls/req'}  function\n`);
for (const [name, cost] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top)) {
  const count = calls.get(name) ?? 0;
  process.stdout.write(`${((cost / total) * 100).toFixed(2).padStart(5)}% ${cost.toLocaleString('en-US').padStart(13)}`
    + `${requests === null ? '' : `${perRequest(cost)} ${perRequest(count)}`}  ${name.slice(0, 150)}\n`);
}
if (values.callers !== undefined) {
  process.stdout.write(`\ncallers of *${values.callers}* (instructions inside the calls, calls):\n`);
  for (const [edge, { inclusive, calls: count }] of [...callers].sort((a, b) => b[1].inclusive - a[1].inclusive).slice(0, top)) {
    process.stdout.write(`${inclusive.toLocaleString('en-US').padStart(13)} ${String(count).padStart(9)}${requests === null ? '' : ` (${perRequest(count).trim()}/req)`}  ${edge.slice(0, 170)}\n`);
  }
}
