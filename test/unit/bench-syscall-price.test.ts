import { describe, expect, it } from 'vitest';
import { measureSyscallPrice, parseSyscallProbe } from '../../bench/syscall-price.js';

describe("the bench's price of a system call", () => {
  it("takes the binding call's cost off the system call's, never below zero", () => {
    expect(parseSyscallProbe('getuid_ns=1339.4 uptime_ns=91.8\n')).toEqual({ getuidNanos: 1339.4, bindingNanos: 91.8, syscallMicros: 1.248 });
    expect(parseSyscallProbe('getuid_ns=80 uptime_ns=95.5\n').syscallMicros).toBe(0);
  });

  it('refuses output that holds no price instead of recording NaN', () => {
    expect(() => parseSyscallProbe('Error: something else\n')).toThrow(/printed no price/);
  });

  it('measures a real system call dearer than a call that makes none', () => {
    const price = measureSyscallPrice();
    expect(price.getuidNanos).toBeGreaterThan(price.bindingNanos);
    expect(price.syscallMicros).toBeGreaterThan(0);
    expect(price.syscallMicros).toBeLessThan(1000);
  });
});
