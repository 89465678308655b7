// Joins one carrier (an MC docket plus its census row) with every side source into the CarrierRecord that
// decide() reads. All matching happens here, at ingest, so the hot path only decodes.
import type { CarrierRecord, WatchlistHit } from '../core/carrier.js';
import { place } from '../match/address.js';
import type { WatchlistIndex } from '../match/watchlist-index.js';
import type { Quarantine } from './quarantine.js';
import type { SlotIndex } from './slot-index.js';
import type { DnuEntry } from './dnu.js';
import type { AuthorityTable } from './sources/authority.js';
import type { CensusRow } from './sources/census.js';
import { earlier } from './sources/common.js';
import type { InsuranceTable } from './sources/insurance.js';
import type { OosOrder } from './sources/oos.js';
import type { RevocationInfo } from './sources/revocations.js';

/** Side sources keyed by MC (numeric) or DOT; a source not given is null, never an empty map. */
export interface JoinedSources {
  authority: AuthorityTable;
  insurance: InsuranceTable | null;
  insuranceHistory: Map<number, string> | null;
  revocations: Map<number, RevocationInfo> | null;
  oos: Map<number, OosOrder> | null;
  watchlists: WatchlistIndex;
  dnu: Map<string, DnuEntry>;
  /** The MC → slot index the per-MC tables share; the census join keeps its state in columns over it too. */
  mcSlots: SlotIndex;
  /** As-of (RFC 3339) of the authority data a docket's status came from (side-by-side files may differ). */
  authorityAsOf: (mc: number) => string | null;
  /** As-of (RFC 3339) of the newest revocation data read, or null without a revocations file. */
  revocationsAsOf: string | null;
  /** Rows set aside as unreadable, by the carrier they belong to (absent in callers that quarantine nothing). */
  quarantine?: Quarantine;
}

/**
 * A revocation that took effect blocks unless the authority data is newer than ALL the revocation data and shows
 * the authority active on a day after the revocation's effective date, i.e. re-granted after it. An authority file
 * older than the revocation file (legacy L&I is frozen since May 2026) can never clear a revocation.
 */
export function revocationStillApplies(
  revokedOn: string, status: string, authorityAsOf: string | null, revocationsAsOf: string | null,
): boolean {
  if (status !== 'active' || authorityAsOf === null || revocationsAsOf === null) return true;
  if (!(authorityAsOf > revocationsAsOf)) return true;
  return !(authorityAsOf.slice(0, 10) > revokedOn);
}

export interface CarrierIdentity {
  dot: number | null;
  legalName: string;
  dbaName: string | null;
}

export function buildRecord(mc: number, census: CensusRow | null, identity: CarrierIdentity, sources: JoinedSources): CarrierRecord {
  const mcText = String(mc);
  const authority = sources.authority.byMc.get(mc);
  const status = authority?.status ?? 'unknown';
  const revocation = sources.revocations?.get(mc);
  const insurance = sources.insurance?.get(mc);
  // Insurance file first; the authority file's own BIPD-on-file figure when the insurance file has no row;
  // 0 (none on file) when an insurance file was given and neither knows the docket; null with no data at all.
  const onFile = insurance?.bipdOnFileUsd ?? authority?.bipdOnFileUsd ?? (sources.insurance ? 0 : null);
  const oos = identity.dot === null ? undefined : sources.oos?.get(identity.dot);

  const hits: WatchlistHit[] = [];
  const dnu = sources.dnu.get(mcText);
  if (dnu) {
    hits.push({ list: 'dnu', entry_id: mcText, matched_name: identity.legalName, carrier_name: identity.legalName, score: 1, exact: true, note: dnu.reason });
  }
  // The census address lets a listed address agree (or disagree) with the carrier's (src/match/address.ts).
  hits.push(...sources.watchlists.match([identity.legalName, identity.dbaName, ...(census?.otherNames ?? [])], census?.place ? place(census.place) : null));
  const unreadable = [...census?.unreadable ?? [], ...sources.quarantine?.fieldsOf(mc, identity.dot) ?? []];

  return {
    mc: mcText,
    dot: identity.dot === null ? null : String(identity.dot),
    legal_name: identity.legalName,
    dba_name: identity.dbaName,
    usdot_status: census?.status ?? null,
    authority: {
      status,
      // No grant date in the Carrier files: the census ADD_DATE (when the DOT record was created) is a lower
      // bound on authority age, so a recent ADD_DATE always means a new authority; an old one may miss some.
      granted_on: census?.addDate ?? null,
      revocation_pending_on: revocation?.pendingOn ?? (authority?.revocationFlagged ? '' : null),
      revoked_on: revocation?.revokedOn && revocationStillApplies(revocation.revokedOn, status, sources.authorityAsOf(mc), sources.revocationsAsOf)
        ? revocation.revokedOn : null,
    },
    insurance: {
      bipd_on_file_usd: onFile,
      bipd_required_usd: authority?.bipdRequiredUsd ?? null,
      cancellation_effective_on: earlier(insurance?.cancellationOn, sources.insuranceHistory?.get(mc) ?? null),
    },
    hazmat: census?.hazmat ?? false,
    safety_rating: census?.safetyRating ?? null,
    mcs150_date: census?.mcs150Date ?? null,
    oos_order: oos ? { since: oos.since, reason: oos.reason } : null,
    hits,
    ...(unreadable.length > 0 ? { unreadable: [...new Set(unreadable)] } : {}),
  };
}
