// Joins one carrier (an MC docket plus its census row) with every side source into the CarrierRecord that
// decide() reads. All matching happens here, at ingest, so the hot path only decodes.
import type { CarrierRecord, IdentitySignals, WatchlistHit } from '../core/carrier.js';
import { place } from '../match/address.js';
import type { WatchlistIndex } from '../match/watchlist-index.js';
import type { MatchItem } from '../match/match-pool.js';
import type { Quarantine } from './quarantine.js';
import type { SlotIndex } from './slot-index.js';
import type { DnuEntry } from './dnu.js';
import type { AuthorityTable } from './sources/authority.js';
import type { CensusRow } from './sources/census.js';
import { earlier } from './sources/common.js';
import { authorityScope } from './sources/authority-table.js';
import type { InsuranceHistory, InsuranceInfo, InsuranceTable } from './sources/insurance.js';
import type { OosOrder } from './sources/oos.js';
import type { RevocationInfo } from './sources/revocations.js';

/** Side sources keyed by MC (numeric) or DOT; a source not given is null, never an empty map. */
export interface JoinedSources {
  authority: AuthorityTable;
  insurance: InsuranceTable | null;
  insuranceHistory: InsuranceHistory | null;
  revocations: Map<number, RevocationInfo> | null;
  /** Latest grant or reinstatement of carrier authority per revoked docket (AuthHist), or null without the file. */
  authorityGrants: Map<number, string> | null;
  oos: Map<number, OosOrder> | null;
  watchlists: WatchlistIndex;
  dnu: Map<string, DnuEntry>;
  /** The MC → slot index the per-MC tables share; the census join keeps its state in columns over it too. */
  mcSlots: SlotIndex;
  /** Rows set aside as unreadable, by the carrier they belong to (absent in callers that quarantine nothing). */
  quarantine?: Quarantine;
}

/**
 * A revocation that took effect (49 U.S.C. 13905) is cleared only by evidence of a later grant or reinstatement of
 * the authority: an AuthHist action dated after its effective date. Never by the date of a file that says "active"
 * (a file dated today may simply not show yesterday's revocation yet).
 */
export function revocationStillApplies(revokedOn: string, grantedOrReinstatedOn: string | null | undefined): boolean {
  return !(grantedOrReinstatedOn && grantedOrReinstatedOn > revokedOn);
}

/**
 * The docket's insurance facts. The policy-level file decides; the Carrier file's BIPD-on-file summary is used only
 * for a docket that file does not list, and never when the insurance history's last event for the docket is a
 * cancellation that took effect: a frozen summary cannot show a lapse after it (49 CFR 387.7).
 */
export function insuranceFacts(
  insurance: InsuranceInfo | undefined, summaryUsd: number | null | undefined, insuranceFileGiven: boolean,
  history: InsuranceHistory | null, mc: number,
): CarrierRecord['insurance'] {
  const last = history?.last.get(mc);
  const lapse = last?.lapse ? last.on : null;
  const pending = history?.pending.get(mc)?.on ?? null;
  if (insurance) {
    const lapsedOn = insurance.bipdOnFileUsd <= 0 ? insurance.cancelledOn ?? lapse : null;
    // A pending cancellation in the history that matched no listed policy: it may end any of them (fail closed).
    const unmatched = pending !== null && insurance.cancellationOn === null;
    return {
      bipd_on_file_usd: insurance.bipdOnFileUsd, bipd_required_usd: null,
      cancellation_effective_on: earlier(insurance.cancellationOn, pending),
      bipd_after_cancellation_usd: unmatched ? 0 : insurance.bipdAfterCancellationUsd, lapsed_on: lapsedOn,
      excess_not_counted_usd: insurance.excessNotCountedUsd,
    };
  }
  const onFile = lapse !== null ? 0 : summaryUsd ?? (insuranceFileGiven ? 0 : null);
  // Without policy rows the summary cannot say which policy a pending cancellation ends: assume all of it.
  return {
    bipd_on_file_usd: onFile, bipd_required_usd: null, cancellation_effective_on: pending,
    ...(pending !== null ? { bipd_after_cancellation_usd: 0 } : {}), lapsed_on: lapse,
  };
}

export interface CarrierIdentity {
  dot: number | null;
  legalName: string;
  dbaName: string | null;
}

/** A revocation that a later AuthHist grant or reinstatement cleared: authority active again (authority_reactivated). */
function reactivation(revokedOn: string | null | undefined, grantedOn: string | undefined): IdentitySignals['reactivated'] {
  return revokedOn && grantedOn && !revocationStillApplies(revokedOn, grantedOn) ? { on: grantedOn, after: 'revocation', since: revokedOn } : undefined;
}

/** The census history's signals with the reactivation the authority files show; the later reactivation stands. */
function identitySignals(signals: IdentitySignals | undefined, revoked: IdentitySignals['reactivated']): IdentitySignals | undefined {
  if (revoked === undefined) return signals;
  const other = signals?.reactivated;
  return { ...signals, reactivated: other !== undefined && other.on > revoked.on ? other : revoked };
}

/** The watch-list hits of a carrier's names, as buildRecord matches them (also what a name-matching worker is asked). */
export function matchItem(census: CensusRow | null, identity: CarrierIdentity): MatchItem {
  return { names: [identity.legalName, identity.dbaName, ...(census?.otherNames ?? [])], place: census?.place ? place(census.place) : null };
}

/** `hits`: the watch-list hits of matchItem(census, identity) when already matched (a worker thread); else matched here. */
export function buildRecord(
  mc: number, census: CensusRow | null, identity: CarrierIdentity, sources: JoinedSources, signals?: IdentitySignals, hits?: WatchlistHit[],
): CarrierRecord {
  const mcText = String(mc);
  const authority = sources.authority.byMc.get(mc);
  const status = authority?.status ?? 'unknown';
  const revocation = sources.revocations?.get(mc);
  const insurance = insuranceFacts(sources.insurance?.get(mc), authority?.bipdOnFileUsd, sources.insurance !== null, sources.insuranceHistory, mc);
  const docketIndex = census ? census.mcs.indexOf(mc) : -1;
  const scope = authority ? authorityScope(authority) : null;
  const oos = identity.dot === null ? undefined : sources.oos?.get(identity.dot);

  const listed: WatchlistHit[] = [];
  const dnu = sources.dnu.get(mcText);
  if (dnu) {
    listed.push({ list: 'dnu', entry_id: mcText, matched_name: identity.legalName, carrier_name: identity.legalName, score: 1, exact: true, note: dnu.reason });
  }
  // The census address lets a listed address agree (or disagree) with the carrier's (src/match/address.ts).
  if (hits) listed.push(...hits);
  else {
    const item = matchItem(census, identity);
    listed.push(...sources.watchlists.match(item.names, item.place));
  }
  const unreadable = [...census?.unreadable ?? [], ...sources.quarantine?.fieldsOf(mc, identity.dot) ?? []];
  const signalsOf = identitySignals(signals, reactivation(revocation?.revokedOn, sources.authorityGrants?.get(mc)));

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
      revoked_on: revocation?.revokedOn && revocationStillApplies(revocation.revokedOn, sources.authorityGrants?.get(mc))
        ? revocation.revokedOn : null,
      ...(scope ? { scope } : {}),
    },
    insurance: { ...insurance, bipd_required_usd: authority?.bipdRequiredUsd ?? null },
    ...(census ? {
      census: {
        docket_status: docketIndex >= 0 ? census.mcStatuses[docketIndex] ?? null : null,
        carrier_operation: census.operation, prior_revoke_dot: census.priorRevokeDot,
      },
    } : {}),
    hazmat: census?.hazmat ?? false,
    safety_rating: census?.safetyRating ?? null,
    mcs150_date: census?.mcs150Date ?? null,
    oos_order: oos ? { since: oos.since, reason: oos.reason } : null,
    hits: listed,
    ...(unreadable.length > 0 ? { unreadable: [...new Set(unreadable)] } : {}),
    ...(signalsOf !== undefined ? { identity: signalsOf } : {}),
  };
}
