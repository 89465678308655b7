import { describe, expect, it } from 'vitest';
import { goalsTable, issueGoals, type GoalRun, type GoalScenarios } from '../../bench/goals.js';

const SCENARIOS: GoalScenarios = { raw: 'raw', hot: 'hot', cold: 'cold', naive: 'naive', fastify: 'fastify' };

function run(scenario: string, round: number, requestsPerSecond: number, cpuMicrosPerRequest = 10, p99Ms = 1): GoalRun {
  return { scenario, round, requestsPerSecond, cpuMicrosPerRequest, p99Ms };
}

const goal = (results: ReturnType<typeof issueGoals>, prefix: string) => {
  const found = results.find((result) => result.goal.startsWith(prefix));
  if (!found) throw new Error(`no goal ${prefix}`);
  return found;
};

describe('issue-10 goals from one bench run', () => {
  it('takes each ratio within a round and judges the median over rounds', () => {
    // Round 1 is a slow machine state for everyone, round 2 a fast one, round 3 in between.
    const runs = [
      run('raw', 1, 40_000, 20), run('hot', 1, 20_000, 45), run('fastify', 1, 3_000),
      run('raw', 2, 100_000, 8), run('hot', 2, 60_000, 14), run('fastify', 2, 13_000),
      run('raw', 3, 70_000, 12), run('hot', 3, 30_000, 30), run('fastify', 3, 5_000),
    ];
    const results = issueGoals(runs, SCENARIOS);
    const share = goal(results, 'cache-hot ≥ 0.5');
    expect(share.perRound).toEqual([0.5, 0.6, 30_000 / 70_000]);
    expect(share.median).toBe(0.5);
    expect(share.met).toBe(true);
    const cpu = goal(results, 'cache-hot CPU');
    expect(cpu.perRound).toEqual([2.25, 1.75, 2.5]);
    expect(cpu.median).toBe(2.25);
    expect(cpu.met).toBe(false);
    const fastify = goal(results, 'cache-hot ≥ 5× Fastify');
    expect(fastify.perRound.map((value) => Number(value.toFixed(2)))).toEqual([6.67, 4.62, 6]);
    expect(fastify.median).toBe(6);
    expect(fastify.met).toBe(true);
  });

  it('does not mix rounds: a ratio of medians from different rounds is not what is judged', () => {
    // The service is fast in round 1 and slow in round 2, Fastify the opposite (the machine flipped between them).
    const runs = [
      run('hot', 1, 60_000), run('fastify', 1, 10_000),
      run('hot', 2, 20_000), run('fastify', 2, 5_000),
    ];
    const fastify = goal(issueGoals(runs, SCENARIOS), 'cache-hot ≥ 5× Fastify');
    expect(fastify.perRound).toEqual([6, 4]);
    // Even count: the mean of the middle two.
    expect(fastify.median).toBe(5);
    expect(fastify.met).toBe(true);
  });

  it('skips rounds that lack a side and says "not measured" for goals the run did not cover', () => {
    const runs = [run('hot', 1, 30_000, 10, 4), run('raw', 1, 50_000), run('hot', 2, 30_000, 10, 6)];
    const results = issueGoals(runs, SCENARIOS);
    expect(goal(results, 'cache-hot ≥ 0.5').perRound).toEqual([0.6]);
    expect(goal(results, 'cache-hot p99').perRound).toEqual([4, 6]);
    expect(goal(results, 'cache-hot p99').met).toBe(false);
    const naive = goal(results, 'cache-hot ≥ 2.5× naive');
    expect(naive).toMatchObject({ median: null, perRound: [], met: null });
    expect(goal(results, 'cache-cold p99').met).toBeNull();
  });

  it('renders one row per goal, unmet goals in bold, unmeasured ones as such', () => {
    const table = goalsTable(issueGoals([run('hot', 1, 30_000, 10, 7), run('raw', 1, 50_000)], SCENARIOS));
    const lines = table.split('\n');
    expect(lines).toHaveLength(2 + 7 + 4);
    expect(lines).toContain('| cache-hot ≥ 0.5 of raw uWS req/s | 0.60 | 0.60 | yes |');
    expect(lines).toContain('| cache-hot p99 < 5 ms | 7.00 | 7.00 | **no** |');
    expect(lines).toContain('| cache-hot ≥ 5× Fastify full path req/s | not measured |  | – |');
    expect(lines).toContain('| context: cache-hot CPU per request ÷ uWS floor | not measured |  | (context) |');
  });

  it('reads the context lines against the floor and the verdict-length raw row, without a verdict on them', () => {
    const runs = [
      run('raw', 1, 100_000, 8), run('rawVerdict', 1, 90_000, 9), run('floor', 1, 70_000, 12), run('hot', 1, 50_000, 18),
      run('raw', 2, 100_000, 8), run('rawVerdict', 2, 90_000, 10), run('floor', 2, 70_000, 10), run('hot', 2, 50_000, 20),
    ];
    const results = issueGoals(runs, { ...SCENARIOS, floor: 'floor', rawVerdict: 'rawVerdict' });
    const floor = goal(results, 'context: uWS floor');
    expect(floor.perRound).toEqual([1.5, 1.25]);
    expect(floor).toMatchObject({ median: 1.375, met: null, context: true });
    expect(goal(results, 'context: cache-hot CPU per request ÷ raw uWS of').perRound).toEqual([2, 2]);
    expect(goal(results, 'context: cache-hot CPU per request ÷ uWS floor').perRound).toEqual([1.5, 2]);
    expect(goal(results, 'cache-hot CPU per request ≤ 2×')).toMatchObject({ median: 2.375, met: false, context: false });
  });

  it('says how busy raw uWS kept its CPU, so req/s ratios taken against a load-generator-bound raw show as such', () => {
    // Round 1: 60,000 req/s at 12 µs each is 72 % of a core (wrk set the rate); round 2: 80,000 at 12 µs, 96 %.
    const runs = [run('raw', 1, 60_000, 12), run('hot', 1, 30_000, 30), run('raw', 2, 80_000, 12), run('hot', 2, 32_000, 30)];
    const busy = goal(issueGoals(runs, SCENARIOS), 'context: raw uWS CPU busy');
    expect(busy.perRound.map((value) => Number(value.toFixed(2)))).toEqual([0.72, 0.96]);
    expect(busy).toMatchObject({ met: null, context: true });
  });
});
