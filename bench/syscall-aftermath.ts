// Does a system call slow the user-space work after it, and does grouping the work between calls help?
// (round 37 of issue 10 in bench/HISTORY.md). A fresh Node process pinned to CPU 0 (the bench servers' CPU) times,
// per unit of request-like JavaScript (WORK_UNIT of bench/syscall-price.ts):
//   - the work alone, and getuid(2) alone;
//   - "after one call": k units, then one getuid(2), for k = 1, 2, 4, 8: what the call adds beyond its own price
//     is a cost per call (a fixed refill) if it stays flat as k grows, a slower machine if it grows with k;
//   - "interleaved" (call, unit, call, unit, …) against "grouped" (8 calls, then 8 units): what a server would
//     gain on this instance by running a turn's work between its system calls instead of after each.
// On round 37's PVM guest one call added 1.4–3.4 µs whatever followed it, and grouping cut the extra from 1.8–2.2 µs
// per unit to 0.01–0.3. Not yet run on a KVM guest, where a call costs a tenth as much.
//
//   node --import tsx bench/syscall-aftermath.ts
import { execFileSync } from 'node:child_process';
import { WORK_UNIT, workTimer } from './syscall-price.js';

const PROBE = `${WORK_UNIT}
${workTimer(20_000)}
const call = () => process.getuid();
const repeat = (k, f) => () => { for (let j = 0; j < k; j += 1) f(); };
const ns = (value) => value.toFixed(0).padStart(6) + ' ns';
const unit = timeWork(work);
const syscall = timeWork(call);
console.log('work alone' + ns(unit) + ' per unit; getuid(2) alone' + ns(syscall));
for (const k of [1, 2, 4, 8]) {
  const units = repeat(k, work);
  const alone = timeWork(units);
  const both = timeWork(() => { units(); call(); });
  console.log(k + ' unit(s), then one call: the call adds' + ns(both - alone - syscall) + ' beyond its own price');
}
const eight = repeat(8, work);
const calls = repeat(8, call);
const alone = timeWork(eight) + timeWork(calls);
const interleaved = timeWork(() => { for (let j = 0; j < 8; j += 1) { call(); work(); } });
const grouped = timeWork(() => { calls(); eight(); });
console.log('8 calls and 8 units, interleaved: extra' + ns((interleaved - alone) / 8) + ' per unit; grouped: extra' + ns((grouped - alone) / 8) + ' per unit');
`;

const pin = (() => {
  try {
    execFileSync('taskset', ['-c', '0', 'true'], { stdio: 'ignore' });
    return ['taskset', '-c', '0'];
  } catch {
    return [];
  }
})();
const command = [...pin, process.execPath, '-e', PROBE];
process.stdout.write(execFileSync(command[0] as string, command.slice(1), { encoding: 'utf8', timeout: 120_000 }));
