// The carrier record as a snapshot stores it: everything decide() needs, already matched and normalised at
// ingest so the hot path does no parsing or name matching. Dates are ISO YYYY-MM-DD strings.
import type { SourceName } from './ruleset.js';

/** Authority for hire (property) as FMCSA reports it. "none" means no authority exists; "unknown" means no data. */
export type AuthorityStatus = 'active' | 'inactive' | 'pending' | 'none' | 'unknown';

export interface WatchlistHit {
  /** Which list matched. */
  list: 'ofac_sdn' | 'ofac_cons' | 'sam' | 'dnu';
  /** The list's own entry id (OFAC ent_num, SAM number, DNU row). */
  entry_id: string;
  /** The list's name or alias that matched, as the list writes it. */
  matched_name: string;
  /** Which of the carrier's names matched. */
  carrier_name: string;
  /** Similarity 0..1 after normalisation; 1 with exact=true is an exact normalised match. */
  score: number;
  exact: boolean;
  /** Free text kept for the audit trail (DNU reason, OFAC program, SAM exclusion type). */
  note?: string;
  // Evidence added by the token matcher (src/match). Optional: records written before it lack them, and
  // decide() then falls back to `exact` alone (see watchlistReason).
  /** The listed party is a person or an organisation (vessels and aircraft are never matched). */
  entity_type?: 'individual' | 'entity';
  /** Sanctions program codes (OFAC) or the exclusion type (SAM). */
  programs?: string[];
  /** Which fields agreed: carrier side (legal_name | dba_name), list side (primary_name | alias | cross_reference), address (country, state, city, zip). */
  agreed?: string[];
  /** A secondary identifier (the listed address: ZIP, or city and state) agrees with the carrier's own. */
  confirmed?: boolean;
  /** The matched person name is a common one (expected to be borne by many carrier owners). */
  common_name?: boolean;
  /** SAM Unique Entity ID of the listed party, when the list gives one. */
  uei?: string;
  /** As-of date of the list the hit came from (ISO date), when the list says. */
  list_as_of?: string;
  /** Short written explanation of the score. */
  explanation?: string;
}

export interface CarrierRecord {
  /** Normalised MC docket (bare digits). */
  mc: string;
  dot: string | null;
  legal_name: string;
  dba_name: string | null;
  /** Census STATUS_CODE: 'A' active, 'I' inactive; null when the census has no row. */
  usdot_status: string | null;
  authority: {
    status: AuthorityStatus;
    /** Date the authority was granted (or became active), when known. */
    granted_on: string | null;
    /** A revocation/suspension order exists whose effective date is in the future or not yet set. */
    revocation_pending_on: string | null;
    /** An involuntary revocation/suspension already took effect (and no later grant or reinstatement is on file). */
    revoked_on: string | null;
    /**
     * What the docket's active carrier authority covers when it is not property: 'passenger' or 'household_goods'
     * (only property authority authorises general freight); 'unknown' when the file names no kind. Absent or null:
     * property, or no authority active.
     */
    scope?: 'passenger' | 'household_goods' | 'unknown' | null;
  };
  insurance: {
    /** BIPD on file in US dollars; 0 means none on file; null means the source gave no figure. */
    bipd_on_file_usd: number | null;
    /** BIPD FMCSA requires of this carrier, in US dollars (null when unknown). */
    bipd_required_usd: number | null;
    /** Earliest future-or-recent cancellation effective date of a BIPD policy. */
    cancellation_effective_on: string | null;
    /**
     * BIPD in force once every policy with a pending cancellation is gone (the tower without them), in dollars: what
     * is left after `cancellation_effective_on` passes. Absent: unknown, so a cancellation that took effect leaves 0.
     */
    bipd_after_cancellation_usd?: number | null;
    /** The latest BIPD cancellation that already took effect and left nothing in force beneath it (evidence). */
    lapsed_on?: string | null;
    /** BIPD limits on file that do not count because no layer beneath them reaches $0 (excess without primary). */
    excess_not_counted_usd?: number | null;
  };
  /** Facts of the census record about this docket (absent in records written before they were read). */
  census?: {
    /** DOCKETn_STATUS_CODE of the census column that lists this MC ('A' / 'I'), null when blank. */
    docket_status: string | null;
    /** CARRIER_OPERATION: 'A' interstate, 'B' intrastate hazmat, 'C' intrastate non-hazmat; null when blank. */
    carrier_operation: string | null;
    /** PRIOR_REVOKE_FLAG is Y or PRIOR_REVOKE_DOT_NUMBER names a DOT: that DOT ('' when the flag gives none). */
    prior_revoke_dot: string | null;
  };
  hazmat: boolean;
  /** 'S' | 'C' | 'U' or null when unrated. */
  safety_rating: string | null;
  mcs150_date: string | null;
  /** An out-of-service order in force (status ACTIVE and not rescinded). */
  oos_order: { since: string | null; reason: string } | null;
  hits: WatchlistHit[];
  /** Fields ("source.FIELD") of the carrier's rows the ingest could not read and set aside; absent when none. */
  unreadable?: string[];
  /** Identity signals from the census history (src/core/identity-signals.ts); absent when the carrier has none. */
  identity?: IdentitySignals;
}

/** The latest change of one kind of identity field, as the identity history recorded it. */
export interface IdentityChangeFact {
  /** legal_name, dba_name, phone, cell_phone, email, physical_address or mailing_address. */
  field: string;
  /** Normalised value before; null when the history kept only its fingerprint. */
  old: string | null;
  new: string;
  /** Day (YYYY-MM-DD) of the ingest that first saw the change. */
  first_seen_on: string;
}

/** A phone number or email address this carrier shares with other, unrelated carriers in the same census. */
export interface SharedContactFact {
  field: 'phone' | 'email';
  value: string;
  /** How many other carriers share it, not counting those of an exception DOT group with this one. */
  unrelated: number;
  /** Some of those carriers' DOT numbers (at most 10). */
  dots: string[];
}

/** What the census history says about a carrier's identity; each part is absent when there is nothing to say. */
export interface IdentitySignals {
  contact?: IdentityChangeFact;
  address?: IdentityChangeFact;
  name?: IdentityChangeFact;
  shared?: SharedContactFact[];
  /**
   * Authority active again after a revocation (AuthHist grant or reinstatement after the revocation's effective day)
   * or after a stretch the census listed the USDOT record inactive: `on` the day it became active again, `since` the
   * revocation's day or the first day the ingests saw it inactive.
   */
  reactivated?: { on: string; after: 'revocation' | 'inactivity'; since: string };
}

/** What a snapshot lookup yields for one MC number. */
export type CarrierLookup =
  | { kind: 'found'; record: CarrierRecord }
  | { kind: 'ambiguous'; mc: string; dot_numbers: string[] }
  | { kind: 'not_found' };

/** One input file of a source, as ingested: content hash (computed while streaming), size and data rows read. */
export interface SourceFile { name: string; sha256: string; bytes: number; rows: number }

export interface SourceFreshness {
  present: boolean;
  /** As-of date of the file this source came from (RFC 3339), or null when missing. */
  as_of: string | null;
  rows: number;
  file?: string;
  /** Where `as_of` came from: the file's own content dates, an operator flag, or a date in the file name. */
  as_of_from?: 'content' | 'flag' | 'file_name';
  /** When the ingest that read this source ran (RFC 3339). */
  ingested_at?: string;
  files?: SourceFile[];
}

/** Metadata of one complete snapshot version. */
export interface SnapshotMeta {
  version: string;
  data_as_of: string;
  created_at: string;
  carrier_count: number;
  sources: Partial<Record<SourceName, SourceFreshness>>;
  /** Per coded field ("census.STATUS_CODE"): rows, blank and unknown values read (the next ingest compares its own). */
  fields?: Record<string, { rows: number; blank: number; unknown: number }>;
  /** Rows set aside as unreadable (their carriers answer carrier_record_unreadable). */
  quarantined_rows?: number;
  /** The verdict mix the ingest found (eligible, per tier, per reason), for the next ingest's change guards. */
  verdicts?: { carriers: number; eligible: number; tiers: Record<string, number>; reasons: Record<string, number> };
  /** Median of each amount field over the carriers that have one ("insurance.bipd_on_file_usd"), for the next ingest's plausibility guard. */
  medians?: Record<string, number>;
}
