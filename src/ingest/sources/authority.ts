// Operating authority: the legacy headerless 43-field L&I Carrier file, or the Motus Carrier dataset (headers,
// one row per authority). Only for-hire carrier authority (common/contract, Motus "Motor Carrier of ...")
// counts: broker or freight-forwarder authority does not let a company haul freight.
import type { AuthorityStatus } from '../../core/carrier.js';
import { readCsv, readCsvBatches } from '../csv.js';
import { HeaderMap, looksLikeHeader, positionalReader, type RowReader } from '../fields.js';
import { AUTHORITY_KIND, AuthorityByMc, McsByDot, mergedCovers, type AuthorityInfo } from './authority-table.js';
import { CODES } from '../coded-fields.js';
import { readOrQuarantine } from '../quarantine.js';
import { dotKey, mcKey, plausibleBipd, SourceStats, toUsd, type LoadContext } from './common.js';

export type { AuthorityInfo } from './authority-table.js';

export interface AuthorityTable {
  byMc: AuthorityByMc;
  /** DOT → MC dockets, so a census row also gets dockets beyond its three DOCKETn columns. */
  mcsByDot: McsByDot;
  layout: 'legacy' | 'motus';
  stats: SourceStats;
}

export const LEGACY_CARRIER_FIELDS = [
  'DOCKET_NUMBER', 'DOT_NUMBER', 'MX_TYPE', 'RFC_NUMBER', 'COMMON_STAT', 'CONTRACT_STAT', 'BROKER_STAT',
  'COMMON_APP_PEND', 'CONTRACT_APP_PEND', 'BROKER_APP_PEND', 'COMMON_REV_PEND', 'CONTRACT_REV_PEND',
  'BROKER_REV_PEND', 'PROPERTY_CHK', 'PASSENGER_CHK', 'HHG_CHK', 'PRIVATE_AUTH_CHK', 'ENTERPRISE_CHK',
  'MIN_COV_AMOUNT', 'CARGO_REQ', 'BOND_REQ', 'BIPD_FILE', 'CARGO_FILE', 'BOND_FILE', 'UNDELIVERABLE_MAIL',
  'DBA_NAME', 'LEGAL_NAME',
] as const;
const LEGACY_FIELD_COUNT = 43;

/**
 * Motus OP_AUTH_TYPE → whether it is for-hire carrier authority, and what it covers (AUTHORITY_KIND bits). Unknown
 * types warn and do not count. Only property authority authorises general freight: household-goods authority is
 * carrier authority whose scope is not property (authority_not_active when it is the only one active).
 */
export const MOTUS_AUTH_TYPES: ReadonlyArray<[RegExp, boolean, number]> = [
  [/^motor carrier of property/i, true, AUTHORITY_KIND.property],
  [/^motor carrier of household goods/i, true, AUTHORITY_KIND.household_goods],
  [/^(common|contract)( carrier)?/i, true, AUTHORITY_KIND.property],
  [/^motor carrier of passengers/i, false, AUTHORITY_KIND.passenger],
  [/^broker/i, false, 0],
  [/^freight forwarder/i, false, 0],
];
const MOTUS_COVERS = MOTUS_AUTH_TYPES.map(([, , covers]) => covers);

/** Legacy Freight / Household Goods / Passenger flags (PROPERTY_CHK, HHG_CHK, PASSENGER_CHK) → AUTHORITY_KIND bits. */
export function legacyCovers(property: string, householdGoods: string, passenger: string): number {
  return (property === 'Y' ? AUTHORITY_KIND.property : 0) | (householdGoods === 'Y' ? AUTHORITY_KIND.household_goods : 0)
    | (passenger === 'Y' ? AUTHORITY_KIND.passenger : 0);
}

/** Motus OP_AUTH_STATUS → our status. Withdrawn = an application given up, i.e. no live authority. */
export const MOTUS_AUTH_STATUS: Readonly<Record<string, AuthorityStatus>> = {
  ACTIVE: 'active', INACTIVE: 'inactive', PENDING: 'pending', WITHDRAWN: 'inactive',
};

/** Legacy A/I/N per authority plus pending flags → one status for carrier authority. */
export function legacyStatus(common: string, contract: string, commonPending: string, contractPending: string): AuthorityStatus {
  if (common === 'A' || contract === 'A') return 'active';
  if (commonPending === 'Y' || contractPending === 'Y') return 'pending';
  if (common === 'I' || contract === 'I') return 'inactive';
  if (common === 'N' && contract === 'N') return 'none';
  return 'unknown';
}

export async function loadAuthority(file: string, context: LoadContext, stats = new SourceStats()): Promise<AuthorityTable> {
  const table: AuthorityTable = { byMc: new AuthorityByMc(context.mcSlots), mcsByDot: new McsByDot(), layout: 'legacy', stats };
  const warned = new Set<string>();
  const warnOnce = (message: string) => {
    if (warned.has(message)) return;
    warned.add(message);
    context.warn(`${file}: ${message}`);
  };
  let header: HeaderMap | null = null;
  let first = true;
  const duplicates: Duplicates = { conflicting: 0, examples: [] };
  for await (const batch of readCsvBatches(file, { onBytes: context.onBytes })) {
    for (const { row, cells } of batch) {
      if (first) {
        first = false;
        if (looksLikeHeader(cells)) {
          header = new HeaderMap(file, cells, ['DOCKET_NUMBER', 'USDOT_NUMBER', 'OP_AUTH_TYPE', 'OP_AUTH_STATUS', 'MIN_COV_AMOUNT', 'BIPD_FILE']);
          table.layout = 'motus';
          continue;
        }
      }
      table.stats.rows += 1;
      const fields = header ? header.reader(row, cells) : positionalReader(file, row, cells, LEGACY_CARRIER_FIELDS, LEGACY_FIELD_COUNT);
      readOrQuarantine(context.quarantine, 'authority',
        () => (header ? addMotusRow(table, fields, context, warnOnce, duplicates) : addLegacyRow(table, fields, context, duplicates)),
        () => ({ mc: mcKey(fields.text('DOCKET_NUMBER')) }));
    }
  }
  table.byMc.settleKinds(MOTUS_COVERS);
  if (duplicates.conflicting > 0) {
    context.warn(`${file}: ${duplicates.conflicting} docket(s) listed more than once with different facts (e.g. ${duplicates.examples.join(', ')}); the most restrictive reading was kept`);
  }
  return table;
}

function remember(table: AuthorityTable, mc: number, info: AuthorityInfo): void {
  table.byMc.set(mc, info);
  if (info.dot !== null) table.mcsByDot.add(info.dot, mc);
}

/** Dockets met more than once with different facts (counted for one warning). */
interface Duplicates { conflicting: number; examples: string[] }

function noteDuplicate(duplicates: Duplicates, mc: number): void {
  duplicates.conflicting += 1;
  if (duplicates.examples.length < 3) duplicates.examples.push(`MC${mc}`);
}

function addLegacyRow(table: AuthorityTable, fields: RowReader, context: LoadContext, duplicates: Duplicates): void {
  const mc = mcKey(fields.text('DOCKET_NUMBER'));
  if (mc === null) return table.stats.skip('not an MC docket');
  const coded = context.coded;
  for (const field of ['COMMON_STAT', 'CONTRACT_STAT']) coded?.note(`authority.${field}`, fields.text(field), CODES.legacyAuthorityStat);
  for (const field of ['COMMON_APP_PEND', 'CONTRACT_APP_PEND', 'COMMON_REV_PEND', 'CONTRACT_REV_PEND']) {
    coded?.note(`authority.${field}`, fields.text(field), CODES.legacyFlag);
  }
  const status = legacyStatus(
    fields.text('COMMON_STAT'), fields.text('CONTRACT_STAT'), fields.text('COMMON_APP_PEND'), fields.text('CONTRACT_APP_PEND'),
  );
  const info: AuthorityInfo = {
    dot: dotKey(fields.text('DOT_NUMBER')),
    status,
    revocationFlagged: fields.text('COMMON_REV_PEND') === 'Y' || fields.text('CONTRACT_REV_PEND') === 'Y',
    bipdRequiredUsd: plausibleBipd(fields, 'MIN_COV_AMOUNT', toUsd(fields.amount('MIN_COV_AMOUNT'), 'thousands'), context),
    bipdOnFileUsd: plausibleBipd(fields, 'BIPD_FILE', toUsd(fields.amount('BIPD_FILE'), 'thousands'), context),
    covers: legacyCovers(fields.text('PROPERTY_CHK').toUpperCase(), fields.text('HHG_CHK').toUpperCase(), fields.text('PASSENGER_CHK').toUpperCase()),
  };
  const earlier = table.byMc.get(mc);
  if (earlier) {
    // The same docket twice: never first- or last-wins; the most restrictive reading of both rows.
    const merged = restrictive(earlier, info);
    if (!sameInfo(earlier, info)) noteDuplicate(duplicates, mc);
    remember(table, mc, merged);
    if (info.dot !== null && info.dot !== earlier.dot) table.mcsByDot.add(info.dot, mc);
    return;
  }
  remember(table, mc, info);
}

function sameInfo(a: AuthorityInfo, b: AuthorityInfo): boolean {
  return a.dot === b.dot && a.status === b.status && a.revocationFlagged === b.revocationFlagged
    && a.bipdRequiredUsd === b.bipdRequiredUsd && a.bipdOnFileUsd === b.bipdOnFileUsd && a.covers === b.covers;
}

/** Two readings of one docket → the more restrictive status, the flag if either has it, less on file, more required. */
export function restrictive(ours: AuthorityInfo, theirs: AuthorityInfo): AuthorityInfo {
  const status = RESTRICTIVE.indexOf(ours.status) <= RESTRICTIVE.indexOf(theirs.status) ? ours.status : theirs.status;
  const lower = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : Math.min(a, b));
  const higher = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : Math.max(a, b));
  return {
    dot: ours.dot ?? theirs.dot, status, revocationFlagged: ours.revocationFlagged || theirs.revocationFlagged,
    bipdRequiredUsd: higher(ours.bipdRequiredUsd, theirs.bipdRequiredUsd), bipdOnFileUsd: lower(ours.bipdOnFileUsd, theirs.bipdOnFileUsd),
    covers: mergedCovers(ours, theirs),
  };
}

function addMotusRow(table: AuthorityTable, fields: RowReader, context: LoadContext, warn: (m: string) => void, duplicates: Duplicates): void {
  const mc = mcKey(fields.text('DOCKET_NUMBER'));
  if (mc === null) return table.stats.skip('not an MC docket');
  const type = fields.text('OP_AUTH_TYPE');
  const kind = MOTUS_AUTH_TYPES.findIndex(([pattern]) => pattern.test(type));
  const known = kind >= 0 ? MOTUS_AUTH_TYPES[kind] : undefined;
  if (!known) warn(`unknown OP_AUTH_TYPE "${type}" (row ${fields.row}); not counted as carrier authority`);
  const rawStatus = fields.text('OP_AUTH_STATUS').toUpperCase();
  context.coded?.note('authority.OP_AUTH_STATUS', rawStatus, CODES.motusAuthorityStatus);
  let status: AuthorityStatus = MOTUS_AUTH_STATUS[rawStatus] ?? 'unknown';
  if (!(rawStatus in MOTUS_AUTH_STATUS)) warn(`unknown OP_AUTH_STATUS "${rawStatus}" (row ${fields.row}); treated as unknown`);
  if (!known?.[1]) status = 'none';
  const info: AuthorityInfo = {
    dot: dotKey(fields.text('USDOT_NUMBER')), status: 'none', revocationFlagged: false,
    bipdRequiredUsd: plausibleBipd(fields, 'MIN_COV_AMOUNT', toUsd(fields.amount('MIN_COV_AMOUNT'), context.insuranceUnits), context),
    bipdOnFileUsd: plausibleBipd(fields, 'BIPD_FILE', toUsd(fields.amount('BIPD_FILE'), context.insuranceUnits), context),
    covers: 0,
  };
  const earlier = table.byMc.get(mc);
  if (!earlier) remember(table, mc, info);
  else {
    // Another authority row of the docket: the amounts keep their most restrictive reading.
    const merged = restrictive({ ...earlier, status: 'active' }, { ...info, status: 'active' });
    table.byMc.set(mc, { ...merged, status: earlier.status });
    if (info.dot !== null && info.dot !== earlier.dot) table.mcsByDot.add(info.dot, mc);
  }
  // One row per authority kind: the same kind twice keeps its most restrictive status, and the docket's carrier
  // status is the best among its kinds (settled once the file is read).
  if (known?.[1] && table.byMc.addKindStatus(mc, kind, status)) noteDuplicate(duplicates, mc);
}

/** Rank of a status for the side-by-side merge: the lower one is the more restrictive (fail closed). */
const RESTRICTIVE: readonly AuthorityStatus[] = ['unknown', 'none', 'inactive', 'pending', 'active'];

/**
 * Merges a second authority file (Motus beside legacy L&I, or the reverse) into the first. A docket in one file
 * only is taken as that file says. A docket in both whose statuses disagree gets the MORE restrictive status
 * (e.g. legacy active + Motus inactive → inactive → authority_not_active, a hard stop); insurance figures take the
 * lower on-file and the higher required amount. Returns which dockets the second file spoke about ('second' only
 * there, 'both'), so the revocation rule can use the as-of of the data a docket's status came from.
 */
export function mergeAuthority(first: AuthorityTable, second: AuthorityTable, warn: (message: string) => void): Map<number, 'second' | 'both'> {
  const spoke = new Map<number, 'second' | 'both'>();
  let disagreements = 0;
  const example: string[] = [];
  for (const mc of second.byMc.keys()) {
    const theirs = second.byMc.get(mc)!;
    const ours = first.byMc.get(mc);
    if (!ours) {
      spoke.set(mc, 'second');
      first.byMc.set(mc, theirs);
      if (theirs.dot !== null) first.mcsByDot.add(theirs.dot, mc);
      continue;
    }
    spoke.set(mc, 'both');
    if (ours.status !== theirs.status) {
      disagreements += 1;
      if (example.length < 3) example.push(`MC${mc} ${ours.status}/${theirs.status}`);
    }
    const status = RESTRICTIVE.indexOf(ours.status) <= RESTRICTIVE.indexOf(theirs.status) ? ours.status : theirs.status;
    const lower = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : Math.min(a, b));
    const higher = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : Math.max(a, b));
    first.byMc.set(mc, {
      dot: ours.dot ?? theirs.dot, status, revocationFlagged: ours.revocationFlagged || theirs.revocationFlagged,
      bipdRequiredUsd: higher(ours.bipdRequiredUsd, theirs.bipdRequiredUsd), bipdOnFileUsd: lower(ours.bipdOnFileUsd, theirs.bipdOnFileUsd),
      // Property authority only when every file that says the docket is active says property (fail closed).
      covers: mergedCovers(ours, theirs),
    });
    if (theirs.dot !== null && theirs.dot !== ours.dot) first.mcsByDot.add(theirs.dot, mc);
  }
  if (disagreements > 0) {
    warn(`authority files disagree on ${disagreements} docket(s) (e.g. ${example.join(', ')}); the more restrictive status was kept`);
  }
  return spoke;
}

/** Second pass for the few dockets no census row covers: fetches their names from the authority file. */
export async function loadAuthorityNames(file: string, wanted: Set<number>): Promise<Map<number, { legal: string; dba: string | null }>> {
  const names = new Map<number, { legal: string; dba: string | null }>();
  if (wanted.size === 0) return names;
  let header: HeaderMap | null = null;
  let first = true;
  for await (const { row, cells } of readCsv(file)) {
    if (first) {
      first = false;
      if (looksLikeHeader(cells)) { header = new HeaderMap(file, cells, ['DOCKET_NUMBER']); continue; }
    }
    const fields = header ? header.reader(row, cells) : positionalReader(file, row, cells, LEGACY_CARRIER_FIELDS, LEGACY_FIELD_COUNT);
    const mc = mcKey(fields.text('DOCKET_NUMBER'));
    if (mc === null || !wanted.has(mc) || names.has(mc)) continue;
    names.set(mc, { legal: fields.text('LEGAL_NAME'), dba: fields.text('DBA_NAME') || null });
  }
  return names;
}
