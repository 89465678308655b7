// Instruction counts per request under valgrind's callgrind (BENCH_CALLGRIND=1 in bench/http-load.ts).
//
// Why: on this shared 2-vCPU VM a server's CPU µs per request moves ±15 % between rounds and 1.5–2× between
// instances of the machine, so a before/after of a microsecond could not be resolved in sixteen rounds of issue 10
// (bench/HISTORY.md). The VM exposes no hardware counters (`perf stat -e instructions`: not supported); callgrind
// counts the instructions a process executes in user space, by thread and by function, whatever the neighbours do.
//
// What it gives (round 17 in bench/HISTORY.md):
// - exact calls and instructions per function (`callgrind_annotate`, or the dumps under .bench-out/callgrind/;
//   JIT functions are named through the --perf-basic-prof map, BENCH_NODE_ARGS): "one regular expression test per
//   request, 1.6k instructions" is a count, not a sample, and "gone after the change" is a count of zero;
// - instructions per request of the whole process and of its main thread. These move ±3 % (raw uWS) to ±6 % (the
//   service's main thread) between processes and rounds: what a request costs depends on how many share an
//   event-loop turn (a draw, a record write, a socket read per turn), which depends on valgrind's speed, and work
//   done per millisecond or per second weighs ~50× more per request at valgrind's ~1k requests/s. The other threads
//   (V8's optimising compiler, still busy after minutes at that speed) move far more: read the main thread.
// What it cannot see: the kernel (send/recv, ~2/3 of raw uWS' CPU) and the price of an instruction (cache and
// branch misses). It decides where user-space work goes and whether a change removed it; the CPU-time goals
// stay with the ordinary bench.
//
// The server runs as `valgrind --tool=callgrind … node …` (same PID, so `callgrind_control PID` reaches it); a
// measured run zeroes its counters before the load and dumps them after, and the dump's `totals:` ÷ the responses
// is the run's instructions per request. Under valgrind a server is ~20–60× slower, so the warm-up is longer
// (BENCH_WARMUP, 30 s; 90 s for steadier counts).
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';

export const CALLGRIND_COMMAND = 'valgrind';

/** The command that runs `command` (a node invocation) under callgrind, its dumps going to `directory`. */
export function underCallgrind(command: readonly string[], directory: string): string[] {
  mkdirSync(directory, { recursive: true });
  return [
    CALLGRIND_COMMAND, '--tool=callgrind', '--quiet',
    // Named by PID, so each server's dumps read apart.
    `--callgrind-out-file=${directory}/callgrind.%p`,
    // A file per thread and dump (`callgrind.PID.N-TT`, thread 01 the main one), so the main thread reads apart.
    '--separate-threads=yes',
    // Totals are all this reads: no per-instruction or per-jump data (smaller, faster dumps).
    '--dump-instr=no',
    // Every dump self-contained, so callgrind_annotate reads any one of them alone (names by function).
    '--compress-strings=no', '--compress-pos=no',
    ...command,
  ];
}

/**
 * callgrind_control (through vgdb) finds a process by pipe names valgrind made from its environment's HOST and USER,
 * and a service's HOST is its listen address: the control command runs with the server's environment.
 */
function control(command: '--zero' | '--dump', pid: number, serverEnv: NodeJS.ProcessEnv): void {
  execFileSync('callgrind_control', [command, String(pid)], { stdio: 'ignore', env: serverEnv });
}

/** Sets the process' counters to zero (the start of a measured run). */
export function zeroCounters(pid: number, serverEnv: NodeJS.ProcessEnv): void {
  control('--zero', pid, serverEnv);
}

/** Instructions executed since the counters were last zeroed. */
export interface InstructionCount {
  /** All threads: the main thread, V8's compiler and GC helper threads, libuv's pool. */
  total: number;
  /**
   * The main thread alone: the request path (JS, uWS, ioredis' parser) and the GC work done on it. Steadier than the
   * total between processes: the background threads' part is mostly optimising compilation, which a process
   * still does for minutes of load at valgrind's speed.
   */
  mainThread: number;
}

/** Dumps the process' counters (one file per thread) and returns what they counted since last zeroed. */
export async function dumpInstructions(pid: number, directory: string, serverEnv: NodeJS.ProcessEnv): Promise<InstructionCount> {
  const before = new Set(dumpsOf(pid, directory));
  control('--dump', pid, serverEnv);
  // Read once complete (dumpTotals), and the files are written one after another, so the set must also be the
  // same as a poll before.
  let seen = '';
  for (let waited = 0; waited < 120_000; waited += 250) {
    const fresh = dumpsOf(pid, directory).filter((file) => !before.has(file)).sort();
    const counts = dumpTotals(fresh.map((name) => ({ name, text: readFileSync(`${directory}/${name}`, 'utf8') })));
    if (counts !== null && fresh.join() === seen) return counts;
    seen = fresh.join();
    await new Promise((resume) => setTimeout(resume, 250));
  }
  throw new Error(`callgrind: no complete dump of process ${pid} in ${directory} within 120 s`);
}

/**
 * The counts of one dump's files (`callgrind.PID.N-TT`, one per thread, thread 01 the main one), or null while
 * any is incomplete: a file ends with its `totals:` line (a server with much JIT code writes some MB).
 */
export function dumpTotals(files: ReadonlyArray<{ name: string; text: string }>): InstructionCount | null {
  let total = 0;
  let mainThread: number | null = null;
  for (const { name, text } of files) {
    const totals = /^totals:\s+(\d+)/m.exec(text)?.[1];
    if (totals === undefined) return null;
    total += Number(totals);
    if (name.endsWith('-01')) mainThread = Number(totals);
  }
  return mainThread === null ? null : { total, mainThread };
}

function dumpsOf(pid: number, directory: string): string[] {
  return readdirSync(directory).filter((name) => name.startsWith(`callgrind.${pid}.`) || name === `callgrind.${pid}`);
}
