import { describe, expect, it } from 'vitest';
import { excessOverRatio, fitLine, parseInstanceRows } from '../../bench/instance-fit.js';

describe("the fit of the check's CPU over VM instances", () => {
  it("reads only the instances table's rows: the raw price and the cache-hot ratio", () => {
    const markdown = [
      '| server, scenario | req/s | ratio to raw (min–max) |',
      '| raw uWS, fixed JSON (330 bytes) | 107,550 | 1.00 |',
      '| ninth (19, 00:26) | 8.6; 6.7; 2.2 | 2.28×; 0.44; 5.7 | 0.28; 8.2 | 5.95; 6.69 |',
      '| twenty-first (31, 11:39) | 8.9; 6.9; 2.8 | 2.23×; 0.45; **4.9** | 0.30; 7.8 | 5.85; 6.50 |',
      '| twenty-fourth (34, 14:20) | 5.7; 4.5; 4.1 | **1.91×; 0.53; 3.0** | **0.36**; 5.2 | 4.82; 4.78 |',
    ].join('\n');
    expect(parseInstanceRows(markdown)).toEqual([
      { instance: 'ninth (19, 00:26)', rawMicros: 8.6, hotToRaw: 2.28 },
      { instance: 'twenty-first (31, 11:39)', rawMicros: 8.9, hotToRaw: 2.23 },
      { instance: 'twenty-fourth (34, 14:20)', rawMicros: 5.7, hotToRaw: 1.91 },
    ]);
  });

  it('recovers an exact line and measures what scatter around it leaves unexplained', () => {
    const exact = fitLine([{ x: 4, y: 10 }, { x: 8, y: 18 }, { x: 12, y: 26 }]);
    expect(exact.slope).toBeCloseTo(2, 10);
    expect(exact.intercept).toBeCloseTo(2, 10);
    expect(exact.rSquared).toBeCloseTo(1, 10);
    expect(exact.rmsResidual).toBeCloseTo(0, 10);
    const noisy = fitLine([{ x: 4, y: 11 }, { x: 8, y: 17 }, { x: 12, y: 27 }]);
    expect(noisy.slope).toBeCloseTo(2, 10);
    expect(noisy.rSquared).toBeLessThan(1);
    expect(noisy.intercept).toBeCloseTo(7 / 3, 10);
    expect(noisy.rmsResidual).toBeCloseTo(Math.sqrt(8 / 9), 10); // residuals 2/3, -4/3, 2/3
    expect(() => fitLine([{ x: 5, y: 1 }, { x: 5, y: 2 }])).toThrow(/two points with different x/);
  });

  it("prices the ratio goal: what a check must shed at a given raw price", () => {
    const fit = { slope: 2.1, intercept: 1.7, rSquared: 0.9, rmsResidual: 1 };
    expect(excessOverRatio(fit, 10, 2)).toBeCloseTo(2.7, 10);
    expect(excessOverRatio({ ...fit, slope: 1.8, intercept: 0 }, 10, 2)).toBeCloseTo(-2, 10);
  });
});
