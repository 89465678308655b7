import { describe, expect, it } from 'vitest';
import { parseRates, rateCurveTable, type BenchRow } from '../../bench/rate-curve.js';
import { FLOOR } from '../../bench/scenario-labels.js';

function row(scenario: string, cpuMedian: number, requestsPerSecond: number, calls: Record<string, number> = {}): BenchRow {
  return {
    scenario,
    cpuMedian,
    median: { requestsPerSecond, p50Ms: 0.3, p99Ms: 1.9, systemMicrosPerRequest: cpuMedian / 3, callsPerRequest: calls, redisCpuMicrosPerRequest: 2 },
  };
}

const cells = (line: string) => line.split('|').slice(1, -1).map((cell) => cell.trim());

describe('the rate curve table', () => {
  const table = rateCurveTable([
    { rate: null, rows: [row('hot', 15, 60_000, { evalsha: 0.02, hset: 0.02 }), row(FLOOR, 10, 100_000)] },
    { rate: 20_000, rows: [row('hot', 30, 19_000, { evalsha: 0.15, hset: 0.15 }), row(FLOOR, 18, 19_500)] },
    { rate: 5_000, rows: [row('hot', 60, 4_900, { evalsha: 0.3, hset: 0.3 }), row(FLOOR, 32, 4_950)] },
  ]);
  const lines = table.split('\n');

  it('lists each scenario by ascending rate, saturated last', () => {
    const hot = lines.filter((line) => line.startsWith('| hot |')).map((line) => cells(line)[1]);
    expect(hot).toEqual(['5,000', '20,000', 'saturated']);
  });

  it('prices each rate against the scenario at saturation and against the floor at the same rate', () => {
    const at5k = cells(lines.find((line) => line.startsWith('| hot | 5,000 |')) ?? '');
    expect(at5k[2]).toBe('4,900');
    expect(at5k[3]).toBe('60.0 (20.0)');
    expect(at5k[4]).toBe('4.00×');
    expect(at5k[5]).toBe('1.88×');
    expect(at5k[7]).toBe('0.600');
    const floorAt5k = cells(lines.find((line) => line.startsWith(`| ${FLOOR} | 5,000 |`)) ?? '');
    expect(floorAt5k[4]).toBe('3.20×');
    expect(floorAt5k[5]).toBe('—');
  });

  it('leaves the saturated ratio out when no saturated run was made', () => {
    const unpaced = rateCurveTable([{ rate: 5_000, rows: [row('hot', 60, 4_900)] }]);
    expect(cells(unpaced.split('\n')[2] ?? '')[4]).toBe('—');
  });
});

describe('BENCH_RATES', () => {
  it('reads rates and max', () => {
    expect(parseRates('5000, 10000,max')).toEqual([5000, 10000, null]);
  });

  it('refuses anything else before a run starts', () => {
    expect(() => parseRates('5000,fast')).toThrow(/"fast"/);
    expect(() => parseRates('0')).toThrow(/positive whole rate/);
  });
});
