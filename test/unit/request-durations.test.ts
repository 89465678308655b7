import { describe, expect, it } from 'vitest';
import { REQUEST_DURATION_BUCKETS, RequestDurations } from '../../src/metrics.js';

const NAME = 'ce_http_request_duration_seconds';

describe('the request-duration histogram', () => {
  it('writes cumulative buckets, sum in seconds and count per route, and only routes that answered', () => {
    const durations = new RequestDurations();
    const check = durations.slotOf('POST', '/v1/eligibility');
    const quiet = durations.slotOf('GET', '/v1/health');
    expect(durations.slotOf('POST', '/v1/eligibility')).toBe(check);
    expect(quiet).not.toBe(check);
    // A bound is inclusive (Prometheus' `le`): 1 ms counts in le="0.001"; 7 s only in +Inf.
    for (const ms of [0.2, 1, 1.5, 40, 7000]) durations.observe(check, ms);
    const lines = durations.exposition().trimEnd().split('\n');
    const labels = 'method="POST",route="/v1/eligibility"';
    const bucket = (le: string) => lines.find((line) => line.startsWith(`${NAME}_bucket{${labels},le="${le}"} `))?.split(' ')[1];
    expect(lines.slice(0, 2)).toEqual([expect.stringMatching(new RegExp(`^# HELP ${NAME} `)), `# TYPE ${NAME} histogram`]);
    expect(['0.0005', '0.001', '0.002', '0.05', '5', '+Inf'].map(bucket)).toEqual(['1', '2', '3', '4', '4', '5']);
    expect(lines.filter((line) => line.startsWith(`${NAME}_bucket{${labels},`))).toHaveLength(REQUEST_DURATION_BUCKETS.length + 1);
    expect(lines).toContain(`${NAME}_sum{${labels}} ${(0.2 + 1 + 1.5 + 40 + 7000) / 1000}`);
    expect(lines).toContain(`${NAME}_count{${labels}} 5`);
    expect(lines.some((line) => line.includes('/v1/health'))).toBe(false);
  });

  it('escapes label values as the text format requires', () => {
    const durations = new RequestDurations();
    durations.observe(durations.slotOf('GET', 'a"b\\c\nd'), 1);
    expect(durations.exposition()).toContain(`${NAME}_count{method="GET",route="a\\"b\\\\c\\nd"} 1`);
  });
});
