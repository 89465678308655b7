// Revocations and suspensions: legacy Revocation (6 fields, headerless or with the header the public copy
// carries) or Motus RevokeSuspend (headers, ORDER1_*). Only involuntary orders against carrier (not broker)
// authority matter: a voluntary revocation is the carrier giving authority up, which the authority status shows.
import { readCsv } from '../csv.js';
import { LEGACY_DATE_FORMATS, MOTUS_DATE_FORMATS } from './insurance.js';
import { HeaderMap, looksLikeHeader, positionalReader, type RowReader } from '../fields.js';
import { readOrQuarantine } from '../quarantine.js';
import { earlier, mcKey, SourceStats, type LoadContext } from './common.js';

export interface RevocationInfo {
  /** Earliest effective date still ahead (or '' when an order has no effective date yet). */
  pendingOn: string | null;
  /** Latest effective date already passed. */
  revokedOn: string | null;
}

const LEGACY = ['DOCKET_NUMBER', 'DOT_NUMBER', 'TYPE', 'SERVE_DATE', 'REVOCATION_TYPE', 'EFFECTIVE_DATE'] as const;

/** Header aliases: the public legacy copy, the Socrata legacy view and Motus each name the columns differently. */
const ALIASES: Record<(typeof LEGACY)[number], string[]> = {
  DOCKET_NUMBER: ['DOCKET_NUMBER'],
  DOT_NUMBER: ['DOT_NUMBER', 'USDOT_NUMBER'],
  TYPE: ['OPERATING_AUTHORITY_REGISTRATION_TYPE', 'TYPE_LICENSE', 'OP_AUTH_TYPE'],
  SERVE_DATE: ['SERVE_DATE', 'ORDER1_SERVE_DATE'],
  REVOCATION_TYPE: ['REVOCATION_TYPE', 'ORDER2_TYPE_DESC', 'ORDER1_TYPE_DESC'],
  EFFECTIVE_DATE: ['EFFECTIVE_DATE', 'ORDER2_EFFECTIVE_DATE', 'ORDER1_EFFECTIVE_DATE'],
};

function canonicalHeader(file: string, cells: string[]): HeaderMap {
  const upper = cells.map((cell) => cell.trim().toUpperCase());
  const renamed = upper.map((name) => {
    const canonical = Object.entries(ALIASES).find(([, aliases]) => aliases.includes(name));
    return canonical ? canonical[0] : name;
  });
  // Motus RevokeSuspend names the DOT column USDOT_NUMBER and writes YYYYMMDD; legacy copies write MM/DD/YYYY.
  const formats = upper.includes('USDOT_NUMBER') ? MOTUS_DATE_FORMATS : LEGACY_DATE_FORMATS;
  return new HeaderMap(file, renamed, ['DOCKET_NUMBER', 'REVOCATION_TYPE', 'EFFECTIVE_DATE'], formats);
}

/**
 * How an order's REVOCATION_TYPE counts. Only an explicitly voluntary order (the carrier gave its authority up,
 * which the authority status shows) is skipped; "INVOLUNTARY …" blocks, and so does anything else: an empty type,
 * a Motus "Suspension", a value never seen before. Those are counted and named in the ingest's warnings.
 */
export function revocationKind(type: string): 'voluntary' | 'involuntary' | 'unknown' {
  const value = type.trim();
  if (/^VOLUNTARY\b/i.test(value)) return 'voluntary';
  if (/^INVOLUNTARY\b/i.test(value)) return 'involuntary';
  return 'unknown';
}

/** Broker authority orders do not affect hauling; an empty type (seen in real data) is kept, failing closed. */
export function isCarrierAuthority(type: string): boolean {
  return !/BROKER|FREIGHT FORWARDER|PASSENGER/i.test(type);
}

/**
 * Two revocation files side by side (Motus RevokeSuspend and legacy Revocation): every order in either counts,
 * so a docket revoked in one and absent from the other stays revoked (fail closed).
 */
export function mergeRevocations(into: Map<number, RevocationInfo>, from: Map<number, RevocationInfo>): Map<number, RevocationInfo> {
  for (const [mc, theirs] of from) {
    const ours = into.get(mc);
    if (!ours) { into.set(mc, { ...theirs }); continue; }
    // '' is "pending, no date yet": a dated pending order replaces it, as within one file.
    const [a, b] = [ours.pendingOn, theirs.pendingOn];
    ours.pendingOn = a === null ? b : b === null ? a : a === '' ? b : b === '' ? a : earlier(a, b);
    if (theirs.revokedOn !== null && (ours.revokedOn === null || theirs.revokedOn > ours.revokedOn)) ours.revokedOn = theirs.revokedOn;
  }
  return into;
}

export async function loadRevocations(file: string, context: LoadContext, stats: SourceStats): Promise<Map<number, RevocationInfo>> {
  const byMc = new Map<number, RevocationInfo>();
  let header: HeaderMap | null = null;
  let first = true;
  const unknownTypes = new Map<string, number>();
  for await (const { row, cells } of readCsv(file, { onBytes: context.onBytes })) {
    if (first) {
      first = false;
      if (looksLikeHeader(cells)) { header = canonicalHeader(file, cells); continue; }
    }
    stats.rows += 1;
    const fields: RowReader = header ? header.reader(row, cells) : positionalReader(file, row, cells, LEGACY, LEGACY.length, LEGACY_DATE_FORMATS);
    // A row whose values cannot be read (an impossible or future date) is set aside: its carrier fails closed
    // (carrier_record_unreadable) instead of one row refusing the whole ingest.
    readOrQuarantine(context.quarantine, 'revocations', () => {
      // Serve date: when the order was sent, so the newest one dates the file's content.
      stats.seen(fields.pastDate('SERVE_DATE', context.nowMs));
      const mc = mcKey(fields.text('DOCKET_NUMBER'));
      if (mc === null) { stats.skip('not an MC docket'); return; }
      if (!isCarrierAuthority(fields.text('TYPE'))) { stats.skip('broker authority'); return; }
      const type = fields.text('REVOCATION_TYPE');
      const kind = revocationKind(type);
      if (kind === 'voluntary') { stats.skip('voluntary'); return; }
      const effective = fields.date('EFFECTIVE_DATE');
      if (kind === 'unknown') unknownTypes.set(type, (unknownTypes.get(type) ?? 0) + 1);
      const info = byMc.get(mc) ?? { pendingOn: null, revokedOn: null };
      byMc.set(mc, info);
      if (effective === null) info.pendingOn = info.pendingOn ?? '';
      else if (effective > context.today) info.pendingOn = info.pendingOn === '' ? effective : earlier(info.pendingOn, effective);
      else if (!info.revokedOn || effective > info.revokedOn) info.revokedOn = effective;
    }, () => ({ mc: mcKey(fields.text('DOCKET_NUMBER')) }));
  }
  if (unknownTypes.size > 0) {
    const total = [...unknownTypes.values()].reduce((sum, count) => sum + count, 0);
    const values = [...unknownTypes.keys()].map((value) => JSON.stringify(value)).join(', ');
    context.warn(`${file}: ${total} order(s) with an empty or unknown REVOCATION_TYPE (${values}) counted as involuntary (they block)`);
  }
  return byMc;
}
