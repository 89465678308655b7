// How the load bench's BENCH_BASELINE services are started, apart from bench/http-load.ts so the rules are tested:
// their environment (BENCH_BASELINE_ENV), their Node options (BENCH_BASELINE_NODE_ARGS, else the services' own)
// and the header fragment that says what the baseline rows compare, so a run that prices a Node option by
// BENCH_NODE_ARGS alone (which the baseline inherits: an A/A run) says so in its header.
import { resolve } from 'node:path';

/** BENCH_BASELINE_ENV's `NAME=value,…` as an environment; a malformed entry stops the bench. */
export function baselineEnv(spec: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of (spec ?? '').split(',').filter((part) => part.trim() !== '')) {
    const match = /^\s*([A-Z][A-Z0-9_]*)=(.*)$/.exec(entry);
    if (!match) throw new Error(`BENCH_BASELINE_ENV: "${entry}" is not NAME=value`);
    out[match[1] as string] = (match[2] as string).trim();
  }
  return out;
}

/** A space-separated option list (BENCH_NODE_ARGS and the like) as its options, empty parts dropped. */
export function nodeOptions(list: string | undefined): string[] {
  return (list ?? '').split(' ').filter((part) => part !== '');
}

/**
 * The baseline's Node options: the services' own (`serviceArgs`: the profiler's and BENCH_NODE_ARGS), unless
 * BENCH_BASELINE_NODE_ARGS is set, even empty; then BENCH_NODE_ARGS' options are replaced by it (BENCH_BASELINE=. then
 * prices a Node option of this tree).
 */
export function baselineNodeArgs(serviceArgs: readonly string[], nodeArgs: string | undefined, baselineArgs: string | undefined): string[] {
  if (baselineArgs === undefined) return [...serviceArgs];
  const replaced = new Set(nodeOptions(nodeArgs));
  return [...serviceArgs.filter((arg) => !replaced.has(arg)), ...nodeOptions(baselineArgs)];
}

export interface BaselineSetup {
  /** BENCH_BASELINE as given. */
  directory: string;
  /** This checkout's root. */
  root: string;
  /** BENCH_BASELINE_ENV as given. */
  envSpec: string | undefined;
  serviceArgs: readonly string[];
  baselineArgs: readonly string[];
}

/**
 * What the baseline rows differ by, for the run's header: its environment and its Node options when they are not
 * the services', or a warning that the run is an A/A one (a legitimate run, for the bench's own spread, but not
 * what someone pricing a setting meant).
 */
export function describeBaseline(setup: BaselineSetup): string {
  const parts: string[] = [];
  const env = baselineEnv(setup.envSpec);
  const envText = Object.entries(env).map(([name, value]) => `${name}=${value}`).join(',');
  if (envText !== '') parts.push(`baseline services with ${envText}`);
  const sameArgs = setup.serviceArgs.length === setup.baselineArgs.length
    && setup.serviceArgs.every((arg, index) => arg === setup.baselineArgs[index]);
  if (!sameArgs) {
    parts.push(`Node options: services ${setup.serviceArgs.join(' ') || '(none)'}, baseline ${setup.baselineArgs.join(' ') || '(none)'}`);
  }
  const sameTree = resolve(setup.directory) === resolve(setup.root);
  if (sameTree && sameArgs && envText === '') {
    parts.push('baseline: this checkout with the same options and environment, an A/A run '
      + '(to price a Node option set BENCH_BASELINE_NODE_ARGS, a setting BENCH_BASELINE_ENV)');
  }
  return parts.map((part) => `, ${part}`).join('');
}
