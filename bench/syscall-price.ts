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
//
// It also prices what a system call does to the user-space work after it (round 37 in bench/HISTORY.md): a unit of
// request-like JavaScript (parse a small body, a regex, a Map lookup, stringify an answer; ~3 µs) timed alone and
// with one getuid(2) after each unit, less the system call's own price. On round 37's PVM guest each unit cost
// 1.4–1.6× as much after a system call as alone, which is why a check's own work was 3× its price on the same core
// under KVM: a server makes ~2 system calls per request, so every request's work runs after one.
import { execFileSync } from 'node:child_process';

/** Calls per timed loop: ~0.25 s of system calls at 1.2 µs each; each loop is run twice and the faster taken. */
const CALLS = 200_000;
/** Units of work per timed loop (three loops, the first a warm-up): ~0.2 s with a system call after each at PVM prices. */
const WORK_UNITS = 30_000;

/**
 * A unit of request-like JavaScript, as probe source defining `work()` (~4 µs on round 37's instance): parse a small
 * body, a regex, a lookup in a 100,000-entry Map, stringify an answer. Shared with bench/syscall-aftermath.ts.
 */
export const WORK_UNIT = `
const body = JSON.stringify({ mc_number: 'MC-123456', load: { origin: 'TX', destination: 'CA', value: 120000 } });
const carriers = new Map();
for (let i = 0; i < 100000; i += 1) carriers.set('mc' + i, { mc: i, name: 'CARRIER ' + i });
const answer = { eligible: true, reasons: ['active authority', 'insured'], evidence: { source: 'x'.repeat(200) } };
let sink = 0;
const work = () => {
  const request = JSON.parse(body);
  const mc = /^MC-?(\\d{1,8})$/.exec(request.mc_number);
  const carrier = carriers.get('mc' + (Number(mc[1]) % 100000));
  sink += JSON.stringify({ ...answer, mc: carrier.mc, name: carrier.name }).length;
};`;

/**
 * Probe source defining `timeWork(call)`: ns per call, the faster of two timed loops of `loops` calls after a
 * warm-up loop (work is JIT-compiled, unlike a binding call). Shared with bench/syscall-aftermath.ts.
 */
export function workTimer(loops: number): string {
  return `
const timeWork = (call) => {
  let best = Infinity;
  for (let pass = 0; pass < 3; pass += 1) {
    const started = process.hrtime.bigint();
    for (let i = 0; i < ${loops}; i += 1) call();
    if (pass > 0) best = Math.min(best, Number(process.hrtime.bigint() - started) / ${loops});
  }
  return best;
};`;
}

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
// A second timer, so the first's call site stays as it was before round 37 (two closures) and the system call's
// price stays comparable with earlier rounds'.
${workTimer(WORK_UNITS)}
${WORK_UNIT}
const alone = timeWork(work);
const withSyscall = timeWork(() => { work(); process.getuid(); });
process.stdout.write('getuid_ns=' + syscall.toFixed(1) + ' uptime_ns=' + binding.toFixed(1)
  + ' work_ns=' + alone.toFixed(1) + ' work_getuid_ns=' + withSyscall.toFixed(1) + '\\n');
`;

export interface SyscallPrice {
  /** One `process.getuid()` from Node, ns: the system call and the binding call around it. */
  getuidNanos: number;
  /** One `process.uptime()`, ns: a binding call that makes no system call. */
  bindingNanos: number;
  /** The system call's own price, µs: the difference, never below zero. */
  syscallMicros: number;
  /** One unit of request-like JavaScript work alone, ns. */
  workNanos: number;
  /** The same unit with one `process.getuid()` after it, ns. */
  workThenSyscallNanos: number;
  /** What a unit costs after a system call ÷ alone: (work then getuid − getuid) ÷ work; 1 where calls leave no trace. */
  workAfterSyscallRatio: number;
}

/** Reads the probe's one line; throws on anything else, so a broken probe fails the run instead of logging NaN. */
export function parseSyscallProbe(output: string): SyscallPrice {
  const number = String.raw`(\d+(?:\.\d+)?)`;
  const line = new RegExp(`^getuid_ns=${number} uptime_ns=${number} work_ns=${number} work_getuid_ns=${number}$`, 'm');
  const match = line.exec(output);
  if (match === null) throw new Error(`system call probe printed no price: ${JSON.stringify(output.slice(0, 200))}`);
  const [getuidNanos, bindingNanos, workNanos, workThenSyscallNanos] = match.slice(1, 5).map(Number) as [number, number, number, number];
  return {
    getuidNanos,
    bindingNanos,
    syscallMicros: Math.round(Math.max(0, getuidNanos - bindingNanos)) / 1000,
    workNanos,
    workThenSyscallNanos,
    workAfterSyscallRatio: Math.round(((workThenSyscallNanos - getuidNanos) / workNanos) * 100) / 100,
  };
}

/**
 * Runs the probe in a fresh Node process; `prefix` places it (the bench passes `taskset -c 0`, the servers' CPU).
 * Takes ~1.5 s.
 */
export function measureSyscallPrice(prefix: readonly string[] = []): SyscallPrice {
  const command = [...prefix, process.execPath, '-e', PROBE];
  const output = execFileSync(command[0] as string, command.slice(1), { encoding: 'utf8', timeout: 30_000 });
  return parseSyscallProbe(output);
}
