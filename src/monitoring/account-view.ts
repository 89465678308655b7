// The accounts whose verdict of a watched carrier differs from the carrier-level one: an account with its own
// policy (src/policy) decides every carrier under its rules, and an account with active overrides or clearances
// (src/overrides) gets those carriers lifted. Both features import monitoring (events, watch lists), so monitoring
// never imports them: the composition root hands in the two small ports below.
//
// The detector loads one AccountView per tick (reloading a part only when its epoch moved) and holds the carrier
// baseline for everyone else: an account without a policy and without overrides costs nothing per account.
import type { PublishedRuleSet } from '../core/ruleset.js';
import type { Verdict } from '../core/verdict.js';

/** Account policies as published ({ctl}:policy:epoch moves on every publish). */
export interface PolicySource {
  epoch(): Promise<string | null>;
  /** Every account's current policy version. */
  versions(): Promise<Map<string, number>>;
  /** The rule set `account` decides with under its policy `version` on top of `floor`; null when unknown. */
  rulesetFor(account: string, version: number, floor: PublishedRuleSet): Promise<PublishedRuleSet | null>;
}

/** One active override or clearance, as far as monitoring needs to know it. */
export interface ActiveRef {
  id: string;
  account: string;
  mc: string;
  expiresAtMs: number;
}

/** Every active override at one instant, with the verdict step that goes with exactly that set. */
export interface OverrideSnapshot {
  readonly active: readonly ActiveRef[];
  /**
   * The verdict as the account's active overrides leave it for monitoring (no reference): lifted when they cover
   * every reason. A conditional verdict is noted in the account's review queue, and an override whose bound facts
   * changed is reported (it then covers nothing), as for a single check.
   */
  apply(verdict: Verdict, account: string): Verdict;
}

/** Overrides and clearances as projected for the replicas ({ctl}:ovr:epoch moves on every change). */
export interface OverrideSource {
  epoch(): Promise<string | null>;
  load(): Promise<OverrideSnapshot>;
  /** A listed verdict lifted by this replica's active overrides now (nothing is noted: a listing is not a decision). */
  lift(verdict: Verdict, account: string): Verdict;
}

export interface AccountSources {
  policies?: PolicySource;
  overrides?: OverrideSource;
}

/** The key of an (account, carrier) pair in the detector's processed-overrides hash. */
export function pairKey(account: string, mc: string): string {
  return JSON.stringify([account, mc]);
}

export function parsePairKey(key: string): { account: string; mc: string } | null {
  try {
    const value: unknown = JSON.parse(key);
    return Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && typeof value[1] === 'string'
      ? { account: value[0], mc: value[1] } : null;
  } catch {
    return null;
  }
}

function addTo<V>(map: Map<string, Map<string, V[]>>, outer: string, inner: string, value: V): void {
  let byInner = map.get(outer);
  if (byInner === undefined) map.set(outer, byInner = new Map());
  const list = byInner.get(inner);
  if (list === undefined) byInner.set(inner, [value]);
  else list.push(value);
}

/** What the detector decides per account with during one tick. */
export class AccountView {
  /** MC → account → its active overrides for the carrier. */
  private readonly byCarrier = new Map<string, Map<string, ActiveRef[]>>();
  /** MC → accounts with a processed override pair (their own baseline may still be stored). */
  private readonly processedByCarrier = new Map<string, Set<string>>();
  /** Pair key → the ids of the active overrides covering it, sorted: what the detector records as processed. */
  readonly pairs = new Map<string, string>();

  constructor(
    readonly policyEpoch: string | null,
    readonly policyVersions: ReadonlyMap<string, number>,
    private readonly rulesets: ReadonlyMap<string, PublishedRuleSet>,
    readonly overrideEpoch: string | null,
    private readonly overrides: OverrideSnapshot | null,
    processedPairs: ReadonlyMap<string, string>,
  ) {
    for (const ref of overrides?.active ?? []) addTo(this.byCarrier, ref.mc, ref.account, ref);
    for (const [mc, accounts] of this.byCarrier) {
      for (const [account, refs] of accounts) this.pairs.set(pairKey(account, mc), refs.map((ref) => ref.id).sort().join(','));
    }
    for (const key of processedPairs.keys()) {
      const pair = parsePairKey(key);
      if (pair === null) continue;
      const accounts = this.processedByCarrier.get(pair.mc);
      if (accounts === undefined) this.processedByCarrier.set(pair.mc, new Set([pair.account]));
      else accounts.add(pair.account);
    }
  }

  /** Whether any account may decide differently from the carrier level (else nothing per account is read). */
  get any(): boolean {
    return this.rulesets.size > 0 || this.byCarrier.size > 0 || this.processedByCarrier.size > 0;
  }

  /** The rule set of an account with a policy; null for the global one. */
  rulesetOf(account: string): PublishedRuleSet | null {
    return this.rulesets.get(account) ?? null;
  }

  /** Whether the account's verdict of the carrier is its own: a policy, or active overrides for the carrier. */
  decidesOwn(account: string, mc: string): boolean {
    return this.rulesets.has(account) || this.byCarrier.get(mc)?.has(account) === true;
  }

  /** The watchers of a carrier that decide on their own or may still hold their own baseline of it. */
  ownOf(mc: string, watchers: readonly string[]): string[] {
    if (!this.any) return [];
    const overridden = this.byCarrier.get(mc);
    const processed = this.processedByCarrier.get(mc);
    return watchers.filter((account) => this.rulesets.has(account) || overridden?.has(account) === true || processed?.has(account) === true);
  }

  apply(verdict: Verdict, account: string): Verdict {
    return this.overrides === null ? verdict : this.overrides.apply(verdict, account);
  }

  /** When the account's next active override for the carrier expires, if one is still ahead. */
  overrideExpiry(account: string, mc: string, nowMs: number): number | null {
    let earliest: number | null = null;
    for (const ref of this.byCarrier.get(mc)?.get(account) ?? []) {
      if (ref.expiresAtMs > nowMs && (earliest === null || ref.expiresAtMs < earliest)) earliest = ref.expiresAtMs;
    }
    return earliest;
  }
}

/** Accounts whose policy version differs from the one processed (a first policy included). */
export function changedPolicies(processed: ReadonlyMap<string, number>, current: ReadonlyMap<string, number>): string[] {
  return [...current].filter(([account, version]) => processed.get(account) !== version).map(([account]) => account);
}

/** Pairs whose covering overrides differ from the ones processed: activated, ended, or replaced. */
export function changedPairs(processed: ReadonlyMap<string, string>, current: ReadonlyMap<string, string>): Array<{ account: string; mc: string }> {
  const keys = new Set([...processed.keys(), ...current.keys()]);
  return [...keys].filter((key) => processed.get(key) !== current.get(key)).flatMap((key) => parsePairKey(key) ?? []);
}

/**
 * Loads the view, reusing what is loaded while the epochs stand still: the policies are compiled again only when
 * a policy is published or the floor (the global rule set) changes, the overrides read again only when they move.
 */
export class AccountViewLoader {
  private policies: { epoch: string | null; floor: PublishedRuleSet; versions: Map<string, number>; rulesets: Map<string, PublishedRuleSet> } | null = null;
  private overrides: { epoch: string | null; snapshot: OverrideSnapshot } | null = null;

  constructor(private readonly sources: AccountSources) {}

  async load(floor: PublishedRuleSet, processedPairs: ReadonlyMap<string, string>): Promise<AccountView> {
    const { policies, overrides } = this.sources;
    const [policyEpoch, overrideEpoch] = await Promise.all([policies?.epoch() ?? null, overrides?.epoch() ?? null]);
    if (policies && (this.policies === null || this.policies.epoch !== policyEpoch || this.policies.floor.version !== floor.version)) {
      const versions = await policies.versions();
      const rulesets = new Map<string, PublishedRuleSet>();
      for (const [account, version] of versions) {
        const ruleset = await policies.rulesetFor(account, version, floor);
        if (ruleset !== null) rulesets.set(account, ruleset);
      }
      this.policies = { epoch: policyEpoch, floor, versions, rulesets };
    }
    if (overrides && (this.overrides === null || this.overrides.epoch !== overrideEpoch)) {
      this.overrides = { epoch: overrideEpoch, snapshot: await overrides.load() };
    }
    return new AccountView(
      this.policies?.epoch ?? null, this.policies?.versions ?? new Map(), this.policies?.rulesets ?? new Map(),
      this.overrides?.epoch ?? null, this.overrides?.snapshot ?? null, processedPairs,
    );
  }
}
