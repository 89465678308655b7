// The dry run: for the account's watched carriers and the MC numbers given, each verdict under the policy in
// force and under the candidate, and the ones that differ. Nothing is published or recorded.
import type { PublishedRuleSet } from '../core/ruleset.js';
import type { Reason } from '../core/reasons.js';
import { compilePolicy, type CompiledPolicy } from './apply.js';
import { policyHash, type PolicyDocument, type PublishedPolicy } from './document.js';

export interface VerdictSummary { eligible: boolean; tier: string | null; reasons: Reason[] }
export interface DryRunChange { mc_number: string; before: VerdictSummary; after: VerdictSummary }
export interface DryRunResult {
  ruleset_version: number;
  current_policy_version: number | null;
  evaluated: number;
  changed: number;
  changes: DryRunChange[];
}

export interface DryRunDeps {
  floor: () => PublishedRuleSet | null;
  current: (account: string) => PublishedPolicy | null;
  watched: (account: string) => Promise<string[]>;
  /** The carrier's verdict now under a compiled policy (null: the global rule set alone). */
  verdictUnder: (mc: string, policy: CompiledPolicy | null) => Promise<VerdictSummary>;
}

const same = (a: VerdictSummary, b: VerdictSummary) => a.eligible === b.eligible && a.tier === b.tier && a.reasons.join() === b.reasons.join();

export async function dryRun(deps: DryRunDeps, account: string, candidate: PolicyDocument, mcs: readonly string[]): Promise<DryRunResult> {
  const floor = deps.floor();
  if (!floor) throw new Error('no rule set is in force');
  const current = deps.current(account);
  const before = current ? compilePolicy(current, floor) : null;
  const after = compilePolicy({
    account, version: (current?.version ?? 0) + 1, sha256: policyHash(candidate), published_at: new Date().toISOString(), published_by: null, policy: candidate,
  }, floor);
  const carriers = [...new Set([...(await deps.watched(account)), ...mcs])];
  const changes: DryRunChange[] = [];
  for (const mc of carriers) {
    const [was, would] = await Promise.all([deps.verdictUnder(mc, before), deps.verdictUnder(mc, after)]);
    if (!same(was, would)) changes.push({ mc_number: mc, before: was, after: would });
  }
  return { ruleset_version: floor.version, current_policy_version: current?.version ?? null, evaluated: carriers.length, changed: changes.length, changes };
}
