import { describe, expect, it } from 'vitest';
import { parseAccessLine, percentile, summariseLatency, type AccessSample } from '../../bench/access-latency.js';

const accessLine = (time: string, durationMs: number) =>
  `{"level":30,"time":"${time}","service":"carrier-eligibility","role":"api","request_id":"r1","method":"POST",`
  + `"path":"/v1/eligibility","status":200,"duration_ms":${durationMs},"aborted":false,"msg":"request"}`;

describe('the server-side latency read from access lines', () => {
  it('takes the time and duration of access lines only', () => {
    expect(parseAccessLine(accessLine('2026-11-25T16:02:01.250Z', 1.14))).toEqual({ atMs: Date.parse('2026-11-25T16:02:01.250Z'), durationMs: 1.14 });
    // --trace-gc output, another log line, a line cut off mid-write, an access line without a duration.
    expect(parseAccessLine('[16100:0x8152fd0]      706 ms: Mark-Compact 25.3 (55.3) -> 15.8 (55.3) MB')).toBeNull();
    expect(parseAccessLine('{"level":30,"time":"2026-11-25T16:02:01.250Z","msg":"listening"}')).toBeNull();
    expect(parseAccessLine(accessLine('2026-11-25T16:02:01.250Z', 1.14).slice(0, 90))).toBeNull();
    expect(parseAccessLine('{"time":"2026-11-25T16:02:01.250Z","msg":"request"}')).toBeNull();
  });

  it('gives nearest-rank percentiles', () => {
    const values = Array.from({ length: 100 }, (_, index) => index + 1);
    expect(percentile(values, 0.5)).toBe(50);
    expect(percentile(values, 0.99)).toBe(99);
    expect(percentile(values, 0.999)).toBe(100);
    expect(percentile([7], 0.99)).toBe(7);
    expect(percentile([], 0.5)).toBeNaN();
  });

  it('keeps the last span before the latest line and finds the window with a stop', () => {
    const start = Date.parse('2026-11-25T16:00:00.000Z');
    const samples: AccessSample[] = [];
    // A warm-up second of slow answers, then two seconds of 1-ms answers, ten per 100 ms, with one 40-ms stop.
    for (let ms = 0; ms < 1000; ms += 10) samples.push({ atMs: start + ms, durationMs: 9 });
    for (let ms = 1000; ms < 3000; ms += 10) samples.push({ atMs: start + ms, durationMs: ms === 2500 ? 40 : 1 });
    const summary = summariseLatency(samples, 2000, 100);
    // The span is (latest − 2 s, latest] = (990, 2990] ms: the warm-up is out, every 1-ms answer is in.
    expect(summary.count).toBe(200);
    expect(summary.p50).toBe(1);
    expect(summary.max).toBe(40);
    expect(summary.windows).toHaveLength(21); // windows count from the span's start, so the latest line opens a 21st
    const stops = summary.windows.filter((window) => window.max > 3 * summary.p99);
    expect(stops).toEqual([{ offsetMs: 1500, count: 10, p99: 40, max: 40 }]);
  });
});
