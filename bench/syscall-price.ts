// The instance's price of a system call, measured where the servers run, before every round of the HTTP bench.
//
// Raw uWS, the denominator of issue 10's ratio goals, is two system calls per request (`recv`, `send`) and little
// else, and on round 32's instance (a PVM guest) a null system call cost ~1.1 µs instead of bare metal's typical
// ~0.1–0.2 (`perf bench syscall basic`; rounds 32 and 33 of issue 10 in bench/HISTORY.md). Round 33's instance (a KVM guest) priced it at ~0.1 µs and raw uWS was still 75 % kernel, on
// the same fit line as round 32's: most of a call's time is the loopback TCP work inside it, not the entry, so this
// price tells instances apart but does not explain their ratios.
// Kept beside every round so a run says which kind of instance it ran on.
//
// The probe times `process.getuid()` (one getuid(2) per call: glibc does not cache it) against `process.uptime()`
// (the same kind of binding call, but clock_gettime through the vDSO, no system call), so the difference is the
// system call's own price without Node's binding overhead.
import { execFileSync } from 'node:child_process';

/** Calls per timed loop: ~0.25 s of system calls at 1.2 µs each; each loop is run twice and the faster taken. */
const CALLS = 200_000;

const PROBE = `
const time = (call) => {
  let best = Infinity;
  for (let pass = 0; pass < 2; pass += 1) {
    const started = process.hrtime.bigint();
    for (let i = 0; i < ${CALLS}; i += 1) call();
    best = Math.min(best, Number(process.hrtime.bigint() - started) / ${CALLS});
  }
  return best;
};
const syscall = time(() => process.getuid());
const binding = time(() => process.uptime());
process.stdout.write('getuid_ns=' + syscall.toFixed(1) + ' uptime_ns=' + binding.toFixed(1) + '\\n');
`;

export interface SyscallPrice {
  /** One `process.getuid()` from Node, ns: the system call and the binding call around it. */
  getuidNanos: number;
  /** One `process.uptime()`, ns: a binding call that makes no system call. */
  bindingNanos: number;
  /** The system call's own price, µs: the difference, never below zero. */
  syscallMicros: number;
}

/** Reads the probe's one line; throws on anything else, so a broken probe fails the run instead of logging NaN. */
export function parseSyscallProbe(output: string): SyscallPrice {
  const match = /^getuid_ns=(\d+(?:\.\d+)?) uptime_ns=(\d+(?:\.\d+)?)$/m.exec(output);
  if (match === null) throw new Error(`system call probe printed no price: ${JSON.stringify(output.slice(0, 200))}`);
  const getuidNanos = Number(match[1]);
  const bindingNanos = Number(match[2]);
  return { getuidNanos, bindingNanos, syscallMicros: Math.round(Math.max(0, getuidNanos - bindingNanos)) / 1000 };
}

/**
 * Runs the probe in a fresh Node process; `prefix` places it (the bench passes `taskset -c 0`, the servers' CPU).
 * Takes ~0.6 s.
 */
export function measureSyscallPrice(prefix: readonly string[] = []): SyscallPrice {
  const command = [...prefix, process.execPath, '-e', PROBE];
  const output = execFileSync(command[0] as string, command.slice(1), { encoding: 'utf8', timeout: 30_000 });
  return parseSyscallProbe(output);
}
