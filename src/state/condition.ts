// What is wrong with a replica's view right now, as a short list of problems, for the state-change log lines
// (issue: loud diagnostics). Pure: the same inputs as the health endpoint, no clock, no Redis.
import { toEpochMs } from '../core/dates.js';
import type { SnapshotMeta } from '../core/carrier.js';
import type { PublishedRuleSet } from '../core/ruleset.js';

export type BackendStatus = 'up' | 'unreachable' | 'data_missing';

export interface ConditionInput {
  backend: BackendStatus;
  snapshot: SnapshotMeta | null;
  ruleset: PublishedRuleSet | null;
  maxDataAgeSeconds: number;
  nowMs: number;
}

/**
 * Problems in a fixed order: `redis_unreachable`, `redis_data_missing`, `no_ruleset`, `no_snapshot`,
 * `snapshot_stale`, `source_missing:<name>` (required by the rule set, absent), `source_stale:<name>`.
 * Empty when verdicts are being given.
 */
export function replicaProblems(input: ConditionInput): string[] {
  if (input.backend === 'unreachable') return ['redis_unreachable'];
  const problems: string[] = input.backend === 'data_missing' ? ['redis_data_missing'] : [];
  if (!input.ruleset) problems.push('no_ruleset');
  const { snapshot } = input;
  if (!snapshot) {
    problems.push('no_snapshot');
    return problems;
  }
  const asOf = toEpochMs(snapshot.data_as_of);
  if (!Number.isFinite(asOf) || input.nowMs - asOf > input.maxDataAgeSeconds * 1000) problems.push('snapshot_stale');
  const rules = input.ruleset?.rules;
  if (!rules) return problems;
  for (const name of rules.sources.required) {
    if (!snapshot.sources[name]?.present) problems.push(`source_missing:${name}`);
  }
  for (const [name, maxDays] of Object.entries(rules.sources.max_age_days)) {
    const source = snapshot.sources[name as keyof SnapshotMeta['sources']];
    if (!source?.present || maxDays === undefined) continue;
    const sourceAsOf = source.as_of ? toEpochMs(source.as_of) : NaN;
    if (!Number.isFinite(sourceAsOf) || input.nowMs - sourceAsOf > maxDays * 86_400_000) problems.push(`source_stale:${name}`);
  }
  return problems;
}
