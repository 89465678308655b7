// Reads one callgrind dump of a bench server (BENCH_CALLGRIND=1, bench/callgrind.ts) by function: instructions
// spent in each function itself and how often it was called, per request when told how many the run answered.
// callgrind_annotate reads the same files but cannot name V8's JIT code; with the perf map that --perf-basic-prof
// writes (BENCH_NODE_ARGS=--perf-basic-prof), JIT functions get their JavaScript names here.
//
//   BENCH_NODE_ARGS=--perf-basic-prof BENCH_CALLGRIND=1 BENCH_SCENARIOS=hot BENCH_WARMUP=90 BENCH_DURATION=15 \
//     BENCH_REPEAT=1 npm run bench
//   node --import tsx bench/callgrind-summary.ts .bench-out/callgrind/callgrind.PID.1-01 --map /tmp/perf-PID.map \
//     --requests 13100 [--callers SUBSTRING] [--top 40]
//     [--before DUMP --before-map MAP --before-requests N]
//
// --requests: the run's responses (req/s × duration from the bench line). --callers: who calls the functions whose
// name contains SUBSTRING, with the instructions spent inside those calls (inclusive) and the number of calls.
// --before: a dump of another tree (a BENCH_BASELINE run) to compare with, function by function, per request (JIT
// names compared without their tree's path and optimisation tier): what a change removed or added, counted.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    map: { type: 'string' }, requests: { type: 'string' }, callers: { type: 'string' }, top: { type: 'string', default: '40' },
    before: { type: 'string' }, 'before-map': { type: 'string' }, 'before-requests': { type: 'string' },
  },
});
const file = positionals[0];
if (file === undefined) throw new Error('usage: callgrind-summary.ts DUMP [--map PERF_MAP] [--requests N] [--callers SUBSTRING] [--top N]');

/** JIT code ranges from a perf map; an address reused by later code takes the later entry's name. */
interface Symbol { start: number; end: number; name: string; order: number }

function readSymbols(map: string | undefined): Symbol[] {
  if (map === undefined) return [];
  return readFileSync(map, 'utf8').split('\n').filter(Boolean).map((line, order) => {
    const [start = '0', size = '0', ...name] = line.split(' ');
    return { start: Number.parseInt(start, 16), end: Number.parseInt(start, 16) + Number.parseInt(size, 16), name: name.join(' '), order };
  }).sort((a, b) => a.start - b.start);
}

function namer(symbols: readonly Symbol[]): (raw: string) => string {
  const named = new Map<string, string>();
  return (raw) => {
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
  };
}

interface Dump {
  total: number;
  /** Instructions in each function itself. */
  self: Map<string, number>;
  calls: Map<string, number>;
  /** `caller  →  callee` for callees whose name holds the --callers text. */
  callers: Map<string, { inclusive: number; calls: number }>;
}

// The format (callgrind's "calltree" files): `fn=` opens a function, cost lines `<position> <Ir>` follow; `calls=N
// <target>` after a `cfn=` says the next cost line is the inclusive cost of N calls to cfn, not fn's own.
function readDump(path: string, nameOf: (raw: string) => string, callersOf: string | undefined): Dump {
  const dump: Dump = { total: 0, self: new Map(), calls: new Map(), callers: new Map() };
  let fn = '';
  let cfn = '';
  let pendingCalls = -1;
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (line.startsWith('fn=')) fn = nameOf(line.slice(3));
    else if (line.startsWith('cfn=')) cfn = nameOf(line.slice(4));
    else if (line.startsWith('calls=')) pendingCalls = Number(line.slice(6).split(' ')[0]);
    else if (line.startsWith('totals:')) dump.total = Number(line.slice(7).trim());
    else if (/^[0-9+*-]/.test(line)) {
      const cost = Number(line.split(' ')[1] ?? 0);
      if (pendingCalls >= 0) {
        dump.calls.set(cfn, (dump.calls.get(cfn) ?? 0) + pendingCalls);
        if (callersOf !== undefined && cfn.includes(callersOf)) {
          const key = `${fn}  →  ${cfn}`;
          const entry = dump.callers.get(key) ?? { inclusive: 0, calls: 0 };
          entry.inclusive += cost;
          entry.calls += pendingCalls;
          dump.callers.set(key, entry);
        }
        pendingCalls = -1;
      } else {
        dump.self.set(fn, (dump.self.get(fn) ?? 0) + cost);
      }
    }
  }
  return dump;
}

const { total, self, calls, callers } = readDump(file, namer(readSymbols(values.map)), values.callers);

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

if (values.before !== undefined) {
  const beforeRequests = Number(values['before-requests'] ?? values.requests ?? 1);
  const afterRequests = requests ?? 1;
  const before = readDump(values.before, namer(readSymbols(values['before-map'])), undefined);
  // The same function in two trees: its name without the tree's path, its line and column (code moves), or V8's tier
  // mark (`*` optimised, `^` baseline). Inlining can still differ: a function inlined in one tree shows in its caller.
  const sameName = (name: string) => name.replace(/^JIT JS:[*^~]?/, 'JS:').replace(/file:\/\/\S*?\/(src|bench)\//, '$1/').replace(/:\d+:\d+$/, '');
  const sum = (dump: Dump, key: 'self' | 'calls') => {
    const merged = new Map<string, number>();
    for (const [name, count] of dump[key]) merged.set(sameName(name), (merged.get(sameName(name)) ?? 0) + count);
    return merged;
  };
  const [selfBefore, selfAfter, callsBefore, callsAfter] = [sum(before, 'self'), sum({ total, self, calls, callers }, 'self'), sum(before, 'calls'), sum({ total, self, calls, callers }, 'calls')];
  const rows = [...new Set([...selfBefore.keys(), ...selfAfter.keys()])].map((name) => {
    const was = (selfBefore.get(name) ?? 0) / beforeRequests;
    const is = (selfAfter.get(name) ?? 0) / afterRequests;
    return { name, was, is, callsWas: (callsBefore.get(name) ?? 0) / beforeRequests, callsIs: (callsAfter.get(name) ?? 0) / afterRequests };
  }).sort((a, b) => Math.abs(b.is - b.was) - Math.abs(a.is - a.was)).slice(0, top);
  process.stdout.write(`\nper request, --before → this dump: ${Math.round(before.total / beforeRequests).toLocaleString('en-US')} → ${Math.round(total / afterRequests).toLocaleString('en-US')} instructions; largest changes by function (self instructions, calls):\n`);
  for (const { name, was, is, callsWas, callsIs } of rows) {
    process.stdout.write(`${Math.round(was).toLocaleString('en-US').padStart(9)} → ${Math.round(is).toLocaleString('en-US').padEnd(9)} ${(is - was >= 0 ? '+' : '') + Math.round(is - was).toLocaleString('en-US')}`.padEnd(34)
      + ` calls ${callsWas.toFixed(2)} → ${callsIs.toFixed(2)}`.padEnd(26) + `  ${name.slice(0, 130)}\n`);
  }
}
