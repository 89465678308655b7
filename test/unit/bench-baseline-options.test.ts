import { describe, expect, it } from 'vitest';
import { baselineEnv, baselineNodeArgs, describeBaseline, nodeOptions } from '../../bench/baseline-options.js';

describe("the load bench's baseline options", () => {
  it('reads BENCH_BASELINE_ENV as NAME=value pairs and refuses anything else', () => {
    expect(baselineEnv('DECISION_RECORDS=off, LD_PRELOAD=/usr/lib/x.so')).toEqual({ DECISION_RECORDS: 'off', LD_PRELOAD: '/usr/lib/x.so' });
    expect(baselineEnv(undefined)).toEqual({});
    expect(() => baselineEnv('records off')).toThrow(/BENCH_BASELINE_ENV: "records off" is not NAME=value/);
  });

  it("gives the baseline the services' Node options unless BENCH_BASELINE_NODE_ARGS is set, even empty", () => {
    expect(nodeOptions(' --maglev  --trace-gc ')).toEqual(['--maglev', '--trace-gc']);
    expect(nodeOptions(undefined)).toEqual([]);
    const services = ['--cpu-prof', '--maglev'];
    expect(baselineNodeArgs(services, '--maglev', undefined)).toEqual(['--cpu-prof', '--maglev']);
    expect(baselineNodeArgs(services, '--maglev', '')).toEqual(['--cpu-prof']);
    expect(baselineNodeArgs(services, '--maglev', '--max-semi-space-size=32')).toEqual(['--cpu-prof', '--max-semi-space-size=32']);
  });

  const setup = { directory: '.', root: process.cwd(), envSpec: undefined, serviceArgs: ['--maglev'], baselineArgs: ['--maglev'] };

  it('says when a baseline of this checkout differs in nothing: an A/A run', () => {
    expect(describeBaseline(setup)).toMatch(/an A\/A run .*BENCH_BASELINE_NODE_ARGS/);
    expect(describeBaseline({ ...setup, directory: `${process.cwd()}/` })).toMatch(/A\/A/);
  });

  it('names what the baseline differs by instead', () => {
    const options = describeBaseline({ ...setup, baselineArgs: [] });
    expect(options).toBe(', Node options: services --maglev, baseline (none)');
    const environment = describeBaseline({ ...setup, envSpec: 'LD_PRELOAD=/usr/lib/libjemalloc.so.2' });
    expect(environment).toBe(', baseline services with LD_PRELOAD=/usr/lib/libjemalloc.so.2');
    expect(describeBaseline({ ...setup, directory: '/tmp/before' })).toBe('');
  });
});
