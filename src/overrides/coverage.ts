// Which active overrides and clearances cover a conditional verdict, pure. A verdict is covered only when the
// overrides together cover every one of its reasons; an override whose bound facts no longer hold (a changed
// list entry, a changed carrier name, a new BIPD amount) covers nothing and is reported as invalid, so the caller
// can record that (fail closed: until then it simply does not apply).
import type { Evidence, ReasonEvidence } from '../core/evidence.js';
import type { Reason } from '../core/reasons.js';
import { entryFingerprint, factsFingerprint, namesFingerprint } from './fingerprint.js';
import type { ActiveOverride, Binding } from './model.js';

export interface Coverable {
  found: boolean;
  degraded: boolean;
  tier: string | null;
  reasons: readonly Reason[];
  carrier: { legal_name: string; dba_name: string | null } | null;
  evidence: Pick<Evidence, 'reasons'>;
}

export interface Coverage {
  /** Every reason is covered: the overrides in `applied` lift the verdict. */
  covered: boolean;
  applied: ActiveOverride[];
  /** Overrides whose bound facts changed: to be recorded as invalidated. */
  invalid: ActiveOverride[];
}

const NONE: Coverage = { covered: false, applied: [], invalid: [] };

// Evidence items and carrier blocks of a cache-hot verdict are its template's objects: fingerprinted once.
const entryPrints = new WeakMap<ReasonEvidence, string>();
const factPrints = new WeakMap<ReasonEvidence, string>();
const namePrints = new WeakMap<object, string>();

function printOf(item: ReasonEvidence, clearance: boolean): string {
  const memo = clearance ? entryPrints : factPrints;
  let print = memo.get(item);
  if (print === undefined) {
    print = clearance ? entryFingerprint(item) : factsFingerprint(item);
    memo.set(item, print);
  }
  return print;
}

function namesOf(carrier: Coverable['carrier']): string {
  if (carrier === null) return namesFingerprint(null);
  let print = namePrints.get(carrier);
  if (print === undefined) {
    print = namesFingerprint(carrier);
    namePrints.set(carrier, print);
  }
  return print;
}

/** A clearance binds list entries (source + entry id); an override binds a reason's record. */
function sameSubject(binding: Binding, item: ReasonEvidence, clearance: boolean): boolean {
  return binding.source === item.source && binding.record_id === item.record_id && (clearance || binding.reason === item.reason);
}

/** The reasons `override` covers on this verdict; null when its bound facts changed (invalid). */
function coveredBy(override: ActiveOverride, verdict: Coverable): Reason[] | null {
  const clearance = override.kind === 'clearance';
  if (clearance && override.names_fingerprint !== namesOf(verdict.carrier)) return null;
  const bound = clearance || override.until_change;
  const items = verdict.evidence.reasons;
  if (bound) {
    for (const binding of override.bindings) {
      for (const item of items) {
        if (sameSubject(binding, item, clearance) && printOf(item, clearance) !== binding.fingerprint) return null;
      }
    }
  }
  const covered: Reason[] = [];
  for (const reason of override.reasons) {
    if (!verdict.reasons.includes(reason)) continue;
    // A bound override covers a reason only while every item behind it is one it was granted on: a new list
    // entry behind the same reason is a new review, not an invalidated clearance.
    const ok = !bound || items.every((item) => item.reason !== reason
      || override.bindings.some((binding) => sameSubject(binding, item, clearance) && binding.fingerprint === printOf(item, clearance)));
    if (ok) covered.push(reason);
  }
  return covered;
}

/**
 * The coverage of a verdict by an account's active overrides for its carrier, at `nowMs` (expired ones cover
 * nothing, to the millisecond), for a check or row carrying `reference` (null: none).
 */
export function coverage(verdict: Coverable, overrides: readonly ActiveOverride[], reference: string | null, nowMs: number): Coverage {
  if (overrides.length === 0 || verdict.tier !== 'conditional' || verdict.degraded || !verdict.found || verdict.reasons.length === 0) return NONE;
  const applied: ActiveOverride[] = [];
  const invalid: ActiveOverride[] = [];
  const covered = new Set<Reason>();
  for (const override of overrides) {
    if (override.expires_at_ms <= nowMs) continue;
    if (override.reference !== null && override.reference !== reference) continue;
    const reasons = coveredBy(override, verdict);
    if (reasons === null) {
      invalid.push(override);
      continue;
    }
    if (reasons.length === 0) continue;
    applied.push(override);
    for (const reason of reasons) covered.add(reason);
  }
  const all = verdict.reasons.every((reason) => covered.has(reason));
  return { covered: all, applied: all ? applied : [], invalid };
}
