// Revocations and suspensions: legacy Revocation (6 fields, headerless or with the header the public copy
// carries) or Motus RevokeSuspend (headers, ORDER1_*). Only involuntary orders against carrier (not broker)
// authority matter: a voluntary revocation is the carrier giving authority up, which the authority status shows.
import { readCsv } from '../csv.js';
import { HeaderMap, looksLikeHeader, positionalReader, type RowReader } from '../fields.js';
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
  return new HeaderMap(file, renamed, ['DOCKET_NUMBER', 'REVOCATION_TYPE', 'EFFECTIVE_DATE']);
}

/** Broker authority orders do not affect hauling; an empty type (seen in real data) is kept, failing closed. */
export function isCarrierAuthority(type: string): boolean {
  return !/BROKER|FREIGHT FORWARDER|PASSENGER/i.test(type);
}

export async function loadRevocations(file: string, context: LoadContext, stats: SourceStats): Promise<Map<number, RevocationInfo>> {
  const byMc = new Map<number, RevocationInfo>();
  let header: HeaderMap | null = null;
  let first = true;
  for await (const { row, cells } of readCsv(file, { onBytes: context.onBytes })) {
    if (first) {
      first = false;
      if (looksLikeHeader(cells)) { header = canonicalHeader(file, cells); continue; }
    }
    stats.rows += 1;
    const fields: RowReader = header ? header.reader(row, cells) : positionalReader(file, row, cells, LEGACY, LEGACY.length);
    const mc = mcKey(fields.text('DOCKET_NUMBER'));
    if (mc === null) { stats.skip('not an MC docket'); continue; }
    if (!isCarrierAuthority(fields.text('TYPE'))) { stats.skip('broker authority'); continue; }
    if (!/INVOLUNTARY/i.test(fields.text('REVOCATION_TYPE'))) { stats.skip('voluntary'); continue; }
    const effective = fields.date('EFFECTIVE_DATE');
    const info = byMc.get(mc) ?? { pendingOn: null, revokedOn: null };
    byMc.set(mc, info);
    if (effective === null) info.pendingOn = info.pendingOn ?? '';
    else if (effective > context.today) info.pendingOn = info.pendingOn === '' ? effective : earlier(info.pendingOn, effective);
    else if (!info.revokedOn || effective > info.revokedOn) info.revokedOn = effective;
  }
  return byMc;
}
