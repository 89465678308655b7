// Issue 10's goals, read off one bench run (bench/http-load.ts), so every results file says which it met. Ratios
// are taken within a round (servers measured back to back) and the median over rounds is what is judged: on this
// VM the machine's state can change between rounds, so a ratio of two medians taken
// from different rounds can mix two states. The per-round values are listed beside it.

/** What a goal needs of one server's run. */
export interface GoalRun {
  scenario: string;
  round: number;
  requestsPerSecond: number;
  cpuMicrosPerRequest: number;
  p99Ms: number;
}

/** The rows the goals compare (the bench's scenario labels). */
export interface GoalScenarios {
  raw: string;
  hot: string;
  cold: string;
  naive: string;
  fastify: string;
  /** Rows read only by the context lines (absent: those lines say "not measured"). */
  floor?: string;
  rawVerdict?: string;
}

export interface GoalResult {
  goal: string;
  /** Median over the rounds that measured both sides; null when this run did not measure them. */
  median: number | null;
  perRound: number[];
  /** null: not measured in this run. */
  met: boolean | null;
  /** A context line, not a goal of the issue: it has no "met". */
  context: boolean;
}

type Measure = (run: GoalRun, other: GoalRun | undefined) => number | null;

interface Goal {
  goal: string;
  row: keyof GoalScenarios;
  /** The row it is compared with in the same round, if any. */
  against?: keyof GoalScenarios;
  measure: Measure;
  /** Absent for a context line. */
  met?: (value: number) => boolean;
}

const reqRatio: Measure = (run, other) => (other ? run.requestsPerSecond / other.requestsPerSecond : null);
const cpuRatio: Measure = (run, other) => (other ? run.cpuMicrosPerRequest / other.cpuMicrosPerRequest : null);

const GOALS: readonly Goal[] = [
  { goal: 'cache-hot ≥ 0.5 of raw uWS req/s', row: 'hot', against: 'raw', measure: reqRatio, met: (value) => value >= 0.5 },
  { goal: 'cache-hot CPU per request ≤ 2× raw uWS', row: 'hot', against: 'raw', measure: cpuRatio, met: (value) => value <= 2 },
  { goal: 'cache-hot ≥ 2.5× naive uWS full path req/s', row: 'hot', against: 'naive', measure: reqRatio, met: (value) => value >= 2.5 },
  { goal: 'cache-hot ≥ 5× Fastify full path req/s', row: 'hot', against: 'fastify', measure: reqRatio, met: (value) => value >= 5 },
  { goal: 'cache-cold ≥ 0.35 of raw uWS req/s', row: 'cold', against: 'raw', measure: reqRatio, met: (value) => value >= 0.35 },
  { goal: 'cache-hot p99 < 5 ms', row: 'hot', measure: (run) => run.p99Ms, met: (value) => value < 5 },
  { goal: 'cache-cold p99 < 5 ms', row: 'cold', measure: (run) => run.p99Ms, met: (value) => value < 5 },
  // Context, not goals: how the CPU ratio to raw splits into what this machine charges any server that answers
  // after a Redis trip (the floor), what the evidence's length costs uWS and the kernel (raw uWS of the verdict's
  // length), and what the service does above the floor.
  { goal: 'context: uWS floor CPU per request ÷ raw uWS', row: 'floor', against: 'raw', measure: cpuRatio },
  { goal: 'context: cache-hot CPU per request ÷ raw uWS of the verdict\'s length', row: 'hot', against: 'rawVerdict', measure: cpuRatio },
  { goal: 'context: cache-hot CPU per request ÷ uWS floor', row: 'hot', against: 'floor', measure: cpuRatio },
  // The req/s goals compare served rates, which are the servers' capacities only while each keeps its CPU busy.
  // Where the load generator (on the other vCPU) cannot keep up with raw uWS, raw's rate is wrk's, and the req/s
  // ratios flatter the check (raw uWS 74 % busy, the check 85–91 %).
  { goal: 'context: raw uWS CPU busy (req/s × CPU per request)', row: 'raw', measure: (run) => (run.requestsPerSecond * run.cpuMicrosPerRequest) / 1e6 },
];

/** The median (the mean of the middle two for an even count); null for no values. */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] as number : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

export function issueGoals(runs: readonly GoalRun[], scenarios: GoalScenarios): GoalResult[] {
  const rounds = [...new Set(runs.map((run) => run.round))].sort((a, b) => a - b);
  const find = (row: keyof GoalScenarios, round: number) => {
    const scenario = scenarios[row];
    return scenario === undefined ? undefined : runs.find((run) => run.scenario === scenario && run.round === round);
  };
  return GOALS.map(({ goal, row, against, measure, met }) => {
    const perRound: number[] = [];
    for (const round of rounds) {
      const run = find(row, round);
      const other = against === undefined ? undefined : find(against, round);
      if (run === undefined || (against !== undefined && other === undefined)) continue;
      const value = measure(run, other);
      if (value !== null && Number.isFinite(value)) perRound.push(value);
    }
    const value = median(perRound);
    return { goal, median: value, perRound, met: value === null || met === undefined ? null : met(value), context: met === undefined };
  });
}

/** The goals as a markdown table. */
export function goalsTable(results: readonly GoalResult[]): string {
  const number = (value: number) => (value >= 100 ? value.toFixed(0) : value.toFixed(2));
  return [
    '| goal (issue 10) | this run: median of rounds | per round | met |',
    '|---|---:|---|---|',
    ...results.map(({ goal, median: value, perRound, met, context }) => `| ${goal} | ${value === null ? 'not measured' : number(value)} | `
      + `${perRound.map(number).join(' ')} | ${context ? '(context)' : met === null ? '–' : met ? 'yes' : '**no**'} |`),
  ].join('\n');
}
