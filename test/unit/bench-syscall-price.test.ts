import { describe, expect, it } from 'vitest';
import { measureSyscallPrice, parseSyscallProbe } from '../../bench/syscall-price.js';

describe("the bench's price of a system call", () => {
  it("takes the binding call's cost off the system call's, never below zero", () => {
    const line = (getuid: number, uptime: number) => `getuid_ns=${getuid} uptime_ns=${uptime} work_ns=4000 work_getuid_ns=5300\n`;
    expect(parseSyscallProbe(line(1339.4, 91.8))).toMatchObject({ getuidNanos: 1339.4, bindingNanos: 91.8, syscallMicros: 1.248 });
    expect(parseSyscallProbe(line(80, 95.5)).syscallMicros).toBe(0);
  });

  it("prices the work after a system call against the work alone, the call's own price taken off", () => {
    // PVM-like: 4 µs of work, 1.3 µs per call, 10.1 µs for both: the work cost 8.8 µs after the call, 2.2× alone.
    const pvm = parseSyscallProbe('getuid_ns=1300 uptime_ns=90 work_ns=4000 work_getuid_ns=10100\n');
    expect(pvm).toMatchObject({ workNanos: 4000, workThenSyscallNanos: 10100, workAfterSyscallRatio: 2.2 });
    // KVM-like: the call leaves the work as it was.
    expect(parseSyscallProbe('getuid_ns=160 uptime_ns=90 work_ns=3000 work_getuid_ns=3160\n').workAfterSyscallRatio).toBe(1);
  });

  it('refuses output that holds no price instead of recording NaN', () => {
    expect(() => parseSyscallProbe('Error: something else\n')).toThrow(/printed no price/);
    // A probe of before round 37 (no work figures) is refused too, not read as a work ratio of NaN.
    expect(() => parseSyscallProbe('getuid_ns=1339.4 uptime_ns=91.8\n')).toThrow(/printed no price/);
  });

  it('measures a real system call dearer than a call that makes none, and the work after it', () => {
    const price = measureSyscallPrice();
    expect(price.getuidNanos).toBeGreaterThan(price.bindingNanos);
    expect(price.syscallMicros).toBeGreaterThan(0);
    expect(price.syscallMicros).toBeLessThan(1000);
    expect(price.workNanos).toBeGreaterThan(0);
    // Not "dearer with the call": on a KVM guest the call (~0.1 µs) is within the work's own spread.
    expect(price.workThenSyscallNanos).toBeGreaterThan(0);
    expect(price.workAfterSyscallRatio).toBeGreaterThan(0);
  });
});
