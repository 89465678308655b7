// What a listing prohibits, by list and program. The SDN list blocks: a US person may not deal with a listed
// party under any of its programs, so a strong match is a hard stop. OFAC's consolidated (non-SDN) lists
// restrict narrower things (new debt and equity for sectoral sanctions, securities purchases for CMIC,
// correspondent accounts for CAPTA, named transactions for menu-based sanctions); a broker paying a carrier is
// usually not what they restrict, but a compliance officer must look, so they get a review reason of their own.
// SAM.gov lists only active exclusions; federal contractors may not subcontract to an excluded party.
import type { WatchlistHit } from '../core/carrier.js';

export type ListName = WatchlistHit['list'];

export interface ProgramRule {
  /** The listing prohibits dealing outright (hard stop on a strong match). */
  prohibiting: boolean;
  /** Reason for a strong match (entity, or person confirmed by a secondary identifier). */
  strong: 'ofac_sdn_match' | 'sam_exclusion' | 'ofac_consolidated_match';
  /** Reason for any other hit at or above the review threshold. */
  review: 'possible_ofac_match' | 'possible_sam_exclusion' | 'ofac_consolidated_match';
  description: string;
}

export const LIST_RULES: Record<Exclude<ListName, 'dnu'>, ProgramRule> = {
  ofac_sdn: { prohibiting: true, strong: 'ofac_sdn_match', review: 'possible_ofac_match', description: 'OFAC SDN list (blocking)' },
  ofac_cons: {
    prohibiting: false, strong: 'ofac_consolidated_match', review: 'ofac_consolidated_match',
    description: 'OFAC consolidated non-SDN lists (restrictions short of blocking)',
  },
  sam: { prohibiting: true, strong: 'sam_exclusion', review: 'possible_sam_exclusion', description: 'SAM.gov active exclusion' },
};

/** Consolidated-list program codes and what they restrict (for the explanation a reviewer reads). */
export const CONSOLIDATED_PROGRAMS: Record<string, string> = {
  'UKRAINE-EO13662': 'Sectoral Sanctions Identifications (new debt/equity restrictions)',
  'RUSSIA-EO14024': 'Russia-related directives (non-SDN, menu-based)',
  'CMIC-EO13959': 'Chinese Military-Industrial Complex (securities purchases)',
  'NS-PLC': 'Palestinian Legislative Council members (non-SDN)',
  '561-Related': 'CAPTA list (correspondent and payable-through accounts)',
  'CAATSA - RUSSIA': 'CAATSA section 231 menu-based sanctions',
  'NS-MBS': 'Non-SDN menu-based sanctions',
  FSE: 'Foreign Sanctions Evaders',
  'BURMA-EO14014': 'Burma-related (non-SDN)',
  'VENEZUELA-EO13850': 'Venezuela-related (non-SDN)',
  'IRAN-CON-ARMS-EO': 'Iran conventional arms (non-SDN)',
};

/** Splits OFAC's joined program cell ("SDGT] [IFSR") into codes. */
export function splitPrograms(cell: string): string[] {
  return cell.split(/\]\s*\[/).map((p) => p.replace(/[[\]]/g, '').trim()).filter(Boolean);
}

/** The rule that applies to a hit's list (a DNU hit never reaches here). */
export function ruleFor(list: Exclude<ListName, 'dnu'>): ProgramRule {
  return LIST_RULES[list];
}
