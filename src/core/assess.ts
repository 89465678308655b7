// assess(): the one place that turns what is known about a carrier now (its lookup in a snapshot, the rule set,
// the do-not-use list, the clock) and who asks into a decision. The single check, the batch rows and the
// monitoring detector all decide through it, so a rule added here holds for all three.
//
// Two steps:
// 1. the carrier's decision, the same for every asker (decide(), or a caller's memo of it: see Decider);
// 2. forAsker(): the post-decision step for the account that asks and the request's reference. Account policy and
//    overrides plug in there. It runs after decide(), so it sees the final reasons, and it must fail closed: it
//    never lifts a hard stop, a degraded decision or an unknown carrier.
import type { CarrierLookup, SnapshotMeta } from './carrier.js';
import { decide, type Decision, type DecisionInput } from './decide.js';
import type { PublishedRuleSet } from './ruleset.js';

/** The do-not-use list as read by the caller (the replica's live copy, or a batch's read of the hash). */
export interface DoNotUseView {
  has(mc: string, nowMs: number): boolean;
}

/** What is known about one carrier at one instant. */
export interface CarrierFacts {
  /** The normalised MC number. */
  mc: string;
  /** Null when the carrier could not be read (no snapshot, Redis down, an undecodable record): degraded. */
  lookup: CarrierLookup | null;
  snapshot: SnapshotMeta | null;
  ruleset: PublishedRuleSet | null;
  doNotUse: DoNotUseView;
  backendAvailable: boolean;
  maxDataAgeSeconds: number;
  nowMs: number;
}

/** Who asks: the post-decision step's input (an account's policy and overrides are the account's). */
export interface Asker {
  /** Null for a decision no account asked for (monitoring decides a carrier once, then fans out per account). */
  account: string | null;
  /** The request's own reference (a check's `reference`, a batch row's), when it gave one. */
  reference: string | null;
}

/** No account: the decision as the rules give it. */
export const NO_ASKER: Asker = Object.freeze({ account: null, reference: null });

/**
 * Step 1's implementation: decide() itself, or a memo that returns an equal decision (the single check's verdict
 * templates reuse a cached decision's objects when decide() would give the same fields).
 */
export type Decider = (input: DecisionInput, mc: string) => Decision;

/** The decision for `facts`, as `asker` gets it. */
export function assess(facts: CarrierFacts, asker: Asker, decider: Decider = decide): Decision {
  const { mc, nowMs } = facts;
  const decision = decider({
    lookup: facts.lookup, ruleset: facts.ruleset, snapshot: facts.snapshot, backendAvailable: facts.backendAvailable,
    maxDataAgeSeconds: facts.maxDataAgeSeconds, nowMs, onDoNotUseList: facts.doNotUse.has(mc, nowMs),
  }, mc);
  return forAsker(decision, facts, asker);
}

/**
 * The post-decision step: the carrier's decision as one account gets it. Account policy and overrides go here
 * (what they need, e.g. the account's overrides, comes in on the Asker, read by the caller like the do-not-use
 * list). Today every account gets the rules' decision. A decision it changes must be a new object: the single
 * check's byte templates are keyed by the decision they were made from, and a changed one is then serialised
 * from scratch rather than from a stale template.
 */
export function forAsker(decision: Decision, _at: Pick<CarrierFacts, 'mc' | 'nowMs'>, _asker: Asker): Decision {
  return decision;
}
