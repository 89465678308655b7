// Splits a service's CPU per request into what it is spent on, from `perf record -g` call stacks (kernel and
// native code included, which the V8 profile of BENCH_CPU_PROF cannot see). A sample goes to the first system
// bucket (syscalls, GC) any of its frames matches, so a response's send(2) is counted as "send" whatever JS runs
// it; else to the service code that owns its innermost frame; else to a native bucket (uWS, libuv reads).
//
//   BENCH_NODE_ARGS=--perf-basic-prof BENCH_SCENARIOS=hot BENCH_DURATION=12 BENCH_REPEAT=1 npm run bench &
//   sleep 9; perf record -g -o perf.data -p "$(pgrep -f 'bench/serve\.(js|ts)' | head -1)" -- sleep 4
//   perf script -i perf.data -F comm,tid,ip,sym > perf.txt
//   node --import tsx bench/perf-buckets.ts perf.txt 31.5     # the run's CPU µs per request, from the bench line
//
// The servers run compiled (.bench-out/dist/**/*.js) unless BENCH_FROM_SOURCE=1, so the buckets below match
// either extension. Frames are JIT functions as V8 left them, so a function inlined into its caller counts as the
// caller (the access line can show up under the HTTP adapter that calls logRequest); read small buckets with that
// in mind.
//
// Prints each bucket's share of the samples and, given the CPU µs per request, its µs per request; then the
// commonest innermost frames of the samples no bucket took.
import { readFileSync } from 'node:fs';

interface Bucket {
  name: string;
  /** Substrings of a frame's symbol that put a sample in this bucket. */
  frames: readonly string[];
}

/** Kernel, syscall and GC work: a sample goes here when any of its frames matches (in this order). */
const SYSTEM: readonly Bucket[] = [
  { name: 'send(2): the responses', frames: ['__send'] },
  { name: 'recv(2): the requests', frames: ['__libc_recv'] },
  { name: 'writev(2): Redis commands', frames: ['writev'] },
  { name: 'write(2): log chunks, single Redis writes', frames: ['__GI___libc_write'] },
  { name: 'epoll_wait', frames: ['epoll_wait', 'epoll_pwait'] },
  { name: 'garbage collection', frames: ['Heap::', 'Scavenger', 'GCTracer', 'MarkCompact', 'ArrayBufferSweeper'] },
];

/**
 * The service's JavaScript: a sample goes to the bucket of its innermost frame that matches one. Since round 10
 * a response is written from inside the record write's callback (the check waits as an entry of that turn's list),
 * so "any frame matches" would count the whole answer as decision records; the innermost owner does not.
 */
const CODE: readonly Bucket[] = [
  { name: 'access line (src/log.ts)', frames: ['src/log.ts', 'src/log.js'] },
  { name: 'decision records (src/decisions/)', frames: ['src/decisions/'] },
  { name: 'budget draws (src/ratelimit/)', frames: ['src/ratelimit/'] },
  { name: 'API key (src/auth/)', frames: ['src/auth/'] },
  { name: 'eligibility use case and decide (src/eligibility/, src/core/)', frames: ['src/eligibility/', 'src/core/'] },
  { name: 'ioredis (commands, replies)', frames: ['ioredis'] },
  { name: 'HTTP adapter JS, with the uWS calls it makes (src/http/uws.ts)', frames: ['src/http/uws.ts', 'src/http/uws.js'] },
];

/** Native work no JavaScript of the service called: any frame matches. */
const NATIVE: readonly Bucket[] = [
  { name: 'uWS native (HTTP parsing, dispatch)', frames: ['uWS', 'us_', 'HttpResponseWrapper', 'HttpRequestWrapper'] },
  { name: 'Redis socket reads (libuv → ioredis parser)', frames: ['uv__read'] },
];

const matches = (bucket: Bucket, frame: string) => bucket.frames.some((mark) => frame.includes(mark));

function bucketOf(frames: readonly string[]): Bucket | undefined {
  const system = SYSTEM.find((bucket) => frames.some((frame) => matches(bucket, frame)));
  if (system) return system;
  for (const frame of frames) {
    const code = CODE.find((bucket) => matches(bucket, frame));
    if (code) return code;
  }
  return NATIVE.find((bucket) => frames.some((frame) => matches(bucket, frame)));
}

const [file, microsArg] = process.argv.slice(2);
if (!file) throw new Error('usage: perf-buckets.ts PERF_SCRIPT_OUTPUT [CPU_MICROS_PER_REQUEST]');
const microsPerRequest = microsArg === undefined ? null : Number(microsArg);

// `perf script -F comm,tid,ip,sym`: a header line per sample (command, thread id), then one indented line per
// frame, innermost first, as "<address> <symbol>".
const samples = readFileSync(file, 'utf8').split(/\n(?=\S)/);
const counts = new Map<string, number>();
const unclaimed = new Map<string, number>();
let total = 0;
for (const sample of samples) {
  const frames = sample.split('\n').slice(1).map((line) => line.trim().replace(/^[0-9a-f]+\s+/, '')).filter((line) => line !== '');
  if (frames.length === 0) continue;
  total += 1;
  const bucket = bucketOf(frames);
  if (bucket) {
    counts.set(bucket.name, (counts.get(bucket.name) ?? 0) + 1);
  } else {
    const leaf = frames[0] as string;
    unclaimed.set(leaf, (unclaimed.get(leaf) ?? 0) + 1);
  }
}
if (total === 0) throw new Error(`${file}: no samples (expected \`perf script -F comm,tid,ip,sym\` output)`);
const unclaimedTotal = [...unclaimed.values()].reduce((sum, count) => sum + count, 0);
counts.set('other (below)', unclaimedTotal);

const share = (count: number) => `${((count / total) * 100).toFixed(1)} %`;
const micros = (count: number) => (microsPerRequest === null ? '' : ` | ${((count / total) * microsPerRequest).toFixed(2)}`);
process.stdout.write(`${total} samples${microsPerRequest === null ? '' : `, ${microsPerRequest} µs CPU per request`}\n\n`);
process.stdout.write(`| where | share |${microsPerRequest === null ? '' : ' µs per request |'}\n|---|---:|${microsPerRequest === null ? '' : '---:|'}\n`);
for (const [name, count] of [...counts].sort((a, b) => b[1] - a[1])) process.stdout.write(`| ${name} | ${share(count)}${micros(count)} |\n`);
process.stdout.write('\nother, by innermost frame:\n');
for (const [leaf, count] of [...unclaimed].sort((a, b) => b[1] - a[1]).slice(0, 12)) process.stdout.write(`  ${share(count).padStart(7)}  ${leaf.slice(0, 110)}\n`);
