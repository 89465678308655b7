// Which reason a watchlist hit raises. The rules a compliance officer signs:
//   - a hard stop only for a strong ENTITY match on a prohibiting list (OFAC SDN, active SAM exclusion), or a
//     PERSON match that a secondary identifier (the listed address) confirms;
//   - any other person match — however exact the name — is a review reason: a name alone cannot tell the
//     listed JOHN LEE from the thousands of carrier owners of that name;
//   - OFAC's consolidated non-SDN lists (sectoral sanctions, CMIC, NS-PLC, ...) restrict, they do not block:
//     their own review reason, never a hard stop;
//   - hits below the rule set's review threshold raise nothing.
// Records written before the token matcher carry no entity_type: for them `exact` alone decides, as it did.
import type { WatchlistHit } from './carrier.js';
import type { Reason } from './reasons.js';
import type { RuleSet } from './ruleset.js';

export interface ListReasons {
  /** The list prohibits dealing outright: a strong match may hard-stop. */
  prohibiting: boolean;
  strong: Reason;
  review: Reason;
}

/** List → reasons (the program → reason table; every OFAC consolidated program maps to one review reason). */
export const LIST_REASONS: Record<Exclude<WatchlistHit['list'], 'dnu'>, ListReasons> = {
  ofac_sdn: { prohibiting: true, strong: 'ofac_sdn_match', review: 'possible_ofac_match' },
  ofac_cons: { prohibiting: false, strong: 'ofac_consolidated_match', review: 'ofac_consolidated_match' },
  sam: { prohibiting: true, strong: 'sam_exclusion', review: 'possible_sam_exclusion' },
};

/** The hard-stop bar of a rule set (rule sets published before the field existed use the default). */
function hardStopThreshold(rules: RuleSet): number {
  return rules.name_match.hard_stop_threshold ?? 0.95;
}

/** The reason one hit raises under a rule set, or null when it raises none. */
export function watchlistReason(hit: WatchlistHit, rules: RuleSet): Reason | null {
  if (hit.list === 'dnu') return 'do_not_use';
  const table = LIST_REASONS[hit.list];
  if (hit.entity_type === undefined) {
    // Legacy record: exact normalised match was the hard stop. Consolidated lists never block any more.
    if (hit.exact) return table.strong;
    return hit.score >= rules.name_match.review_threshold ? table.review : null;
  }
  const strongName = hit.score >= hardStopThreshold(rules);
  const decisive = hit.entity_type === 'entity' || hit.confirmed === true;
  if (strongName && decisive) return table.strong;
  if (hit.score >= rules.name_match.review_threshold) return table.review;
  return null;
}
