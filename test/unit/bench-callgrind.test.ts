import { describe, expect, it } from 'vitest';
import { dumpTotals, underCallgrind } from '../../bench/callgrind.js';

const dump = (thread: string, totals: number | null) => ({
  name: `callgrind.4242.3-${thread}`,
  text: `# callgrind format\nthread: ${Number(thread)}\nsummary: 7\nfn=main\n0 7\n${totals === null ? '' : `totals: ${totals}\n`}`,
});

describe('callgrind dumps (BENCH_CALLGRIND)', () => {
  it('adds every thread of a dump and keeps the main thread apart', () => {
    expect(dumpTotals([dump('01', 70_000), dump('02', 9_000), dump('03', 1_000)])).toEqual({ total: 80_000, mainThread: 70_000 });
  });

  it('waits (null) while a thread file lacks its totals line, or before the main thread is written', () => {
    expect(dumpTotals([dump('01', 70_000), dump('02', null)])).toBeNull();
    expect(dumpTotals([dump('02', 9_000)])).toBeNull();
    expect(dumpTotals([])).toBeNull();
  });

  it('runs the server under callgrind with a file per thread, named by PID', () => {
    const command = underCallgrind(['node', 'serve.js'], `${process.cwd()}/.bench-out/callgrind-test`);
    expect(command.slice(0, 2)).toEqual(['valgrind', '--tool=callgrind']);
    expect(command).toContain('--separate-threads=yes');
    expect(command.find((arg) => arg.startsWith('--callgrind-out-file='))).toMatch(/callgrind-test\/callgrind\.%p$/);
    expect(command.slice(-2)).toEqual(['node', 'serve.js']);
  });
});
