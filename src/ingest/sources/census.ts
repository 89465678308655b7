// Company Census File (az4n-8mr2) CSV: mapped BY HEADER NAME (case-insensitive) because the column set drifts
// (137 vs 147 columns seen). Yields one compact row per DOT record; the record builder joins the rest.
import { readCsvBatches } from '../csv.js';
import { IngestError } from '../errors.js';
import { HeaderMap, type RowReader } from '../fields.js';
import { CODES, CodedFields } from '../coded-fields.js';
import { readOrQuarantine } from '../quarantine.js';
import { dotKey, mcKey, SourceStats, type LoadContext } from './common.js';
import {
  normaliseAddress, normaliseEmail, normaliseOfficers, normalisePhone, normaliseText, type IdentityValues,
} from '../../core/identity.js';

export interface CensusRow {
  row: number;
  dot: number;
  legalName: string;
  dbaName: string | null;
  status: string | null;
  mcs150Date: string | null;
  addDate: string | null;
  safetyRating: string | null;
  hazmat: boolean;
  /** MC dockets from DOCKET1..3 (FF/MX dropped). */
  mcs: number[];
  /** DOCKETn_STATUS_CODE of each docket in `mcs` (same order), null when blank. */
  mcStatuses: Array<string | null>;
  /** CARRIER_OPERATION (A interstate, B intrastate hazmat, C intrastate non-hazmat), null when blank. */
  operation: string | null;
  /** The previously revoked DOT the record links to ('' when PRIOR_REVOKE_FLAG is Y without one), else null. */
  priorRevokeDot: string | null;
  /** Physical address (PHY_CITY/STATE/ZIP/COUNTRY when the file has them): watchlist matching evidence, not stored. */
  place: { country: string; state: string; city: string; zip: string } | null;
  /** Fields of this row that could not be read (an unknown code): the carrier answers fail-closed. */
  unreadable?: string[];
  /** Names, contact, addresses and officers, normalised (src/core/identity.ts): the identity history compares them. */
  identity: IdentityValues;
  /** Names of other census rows of the same DOT (duplicates merged): screened against the watchlists too. */
  otherNames?: string[];
}

/** Every column a rule reads: a census without one of them would switch that rule off silently. */
export const CENSUS_REQUIRED = ['DOT_NUMBER', 'LEGAL_NAME', 'DBA_NAME', 'STATUS_CODE', 'MCS150_DATE', 'ADD_DATE', 'SAFETY_RATING',
  'HM_IND', 'DOCKET1PREFIX', 'DOCKET1', 'DOCKET2PREFIX', 'DOCKET2', 'DOCKET3PREFIX', 'DOCKET3', 'CARRIER_OPERATION',
  'PRIOR_REVOKE_FLAG', 'PRIOR_REVOKE_DOT_NUMBER', 'DOCKET1_STATUS_CODE', 'DOCKET2_STATUS_CODE', 'DOCKET3_STATUS_CODE'] as const;
const DOCKETS = [1, 2, 3].map((n) => ({ prefix: `DOCKET${n}PREFIX`, number: `DOCKET${n}`, status: `DOCKET${n}_STATUS_CODE` }));

export async function* readCensus(file: string, context: LoadContext, stats: SourceStats): AsyncGenerator<CensusRow> {
  let header: HeaderMap | null = null;
  const coded = context.coded ?? new CodedFields();
  for await (const batch of readCsvBatches(file, { onBytes: context.onBytes })) {
    for (const { row, cells } of batch) {
      if (!header) {
        header = new HeaderMap(file, cells, CENSUS_REQUIRED, CENSUS_DATE_FORMATS);
        continue;
      }
      stats.rows += 1;
      const fields = header.reader(row, cells);
      const map = header;
      const parsed = readOrQuarantine(context.quarantine, 'census', () => censusRow(file, map, fields, context.nowMs, coded),
        () => ({ dot: dotKey(fields.text('DOT_NUMBER')) }));
      if (parsed === undefined) continue;
      // The newest filing or registration date is the census's content as-of (a lower bound on the extract date).
      stats.seen(parsed.mcs150Date);
      stats.seen(parsed.addDate);
      yield parsed;
    }
  }
}

/** The census writes YYYYMMDD, sometimes with " 0000" (data-formats §2.1); nothing else is a census date. */
export const CENSUS_DATE_FORMATS = ['ymd'] as const;

function censusRow(file: string, header: HeaderMap, fields: RowReader, nowMs: number, coded: CodedFields): CensusRow {
  const row = fields.row;
  const dot = dotKey(fields.text('DOT_NUMBER'));
  if (dot === null) throw new IngestError(file, row, 'DOT_NUMBER', `not a DOT number: "${fields.text('DOT_NUMBER')}"`);
  let legalName = fields.text('LEGAL_NAME');
  const unreadable: string[] = [];
  // No name, nothing to screen against the watchlists: the carrier fails closed, the rest of the file is served.
  if (legalName === '') { unreadable.push('census.LEGAL_NAME'); legalName = '(legal name unreadable)'; }
  // An unknown rating says nothing about the carrier: its record fails closed (quarantined), the ingest goes on.
  let rating = fields.text('SAFETY_RATING').toUpperCase();
  if (coded.note('census.SAFETY_RATING', rating, CODES.censusRating) === 'unknown') { unreadable.push('census.SAFETY_RATING'); rating = ''; }
  const status = fields.text('STATUS_CODE').toUpperCase();
  // Unknown or blank: stored as read, so anything but A is usdot_inactive (fail closed).
  coded.note('census.STATUS_CODE', status, CODES.censusStatus);
  const hazmatCode = fields.text('HM_IND').toUpperCase();
  // A hazmat flag that says neither Y nor N is read as hazmat: the higher insurance floor applies (fail closed).
  const hazmat = coded.note('census.HM_IND', hazmatCode, CODES.censusHazmat) === 'known' ? hazmatCode === 'Y' : true;
  const mcs: number[] = [];
  const mcStatuses: Array<string | null> = [];
  for (const docket of DOCKETS) {
    const prefix = fields.text(docket.prefix).toUpperCase();
    const number = fields.text(docket.number);
    if (prefix !== 'MC' || number === '') continue;
    const mc = mcKey(`MC${number}`);
    if (mc === null) throw new IngestError(file, row, docket.number, `not a docket number: "${number}"`);
    if (mcs.includes(mc)) continue;
    mcs.push(mc);
    // Stored as read: anything but A against an active Carrier file is a disagreement (a review, fail closed).
    const docketStatus = fields.text(docket.status).toUpperCase();
    coded.note('census.DOCKET_STATUS_CODE', docketStatus, CODES.censusDocketStatus);
    mcStatuses.push(docketStatus || null);
  }
  const operation = fields.text('CARRIER_OPERATION').toUpperCase();
  coded.note('census.CARRIER_OPERATION', operation, CODES.censusOperation);
  // A prior-revocation link: the flag, or a linked DOT (the flag alone still says one exists).
  const priorDot = fields.text('PRIOR_REVOKE_DOT_NUMBER');
  const priorRevokeDot = priorDot !== '' && dotKey(priorDot) !== null ? String(dotKey(priorDot))
    : fields.text('PRIOR_REVOKE_FLAG').toUpperCase() === 'Y' ? '' : null;
  return {
    row, dot, legalName,
    dbaName: fields.text('DBA_NAME') || null,
    status: status || null,
    mcs150Date: fields.pastDate('MCS150_DATE', nowMs),
    addDate: fields.pastDate('ADD_DATE', nowMs),
    safetyRating: rating || null,
    hazmat,
    mcs, mcStatuses,
    operation: operation || null,
    priorRevokeDot,
    place: header.has('PHY_STATE')
      ? { country: fields.text('PHY_COUNTRY'), state: fields.text('PHY_STATE'), city: fields.text('PHY_CITY'), zip: fields.text('PHY_ZIP') }
      : null,
    identity: readIdentity(fields, legalName),
    ...(unreadable.length > 0 ? { unreadable } : {}),
  };
}

/** Identity columns are optional (a census without them records no contact changes); absent reads as blank. */
function readIdentity(fields: RowReader, legalName: string): IdentityValues {
  const address = (street: string, city: string, state: string, zip: string, country: string) => normaliseAddress({
    street: fields.text(street), city: fields.text(city), state: fields.text(state), zip: fields.text(zip), country: fields.text(country),
  });
  return {
    legal_name: normaliseText(legalName),
    dba_name: normaliseText(fields.text('DBA_NAME')),
    phone: normalisePhone(fields.text('PHONE')),
    cell_phone: normalisePhone(fields.text('CELL_PHONE')),
    email: normaliseEmail(fields.text('EMAIL_ADDRESS')),
    physical_address: address('PHY_STREET', 'PHY_CITY', 'PHY_STATE', 'PHY_ZIP', 'PHY_COUNTRY'),
    mailing_address: address('CARRIER_MAILING_STREET', 'CARRIER_MAILING_CITY', 'CARRIER_MAILING_STATE', 'CARRIER_MAILING_ZIP', 'CARRIER_MAILING_COUNTRY'),
    officers: normaliseOfficers([fields.text('COMPANY_OFFICER_1'), fields.text('COMPANY_OFFICER_2')]),
  };
}

/** Safety ratings from least to most restrictive (unrated is below Satisfactory: it never earns the preferred tier). */
const RATING_RANK = ['S', null, 'C', 'U'];

/**
 * Rows of one DOT (a census listing it more than once) → one row with the most restrictive reading of each fact:
 * inactive if any says so, the worst rating, hazmat if any, the oldest MCS-150, the newest ADD_DATE, every docket,
 * every name screened, every unreadable field kept. Never first-wins, last-wins or best-wins.
 */
export function mergeCensusRows(rows: CensusRow[]): { row: CensusRow; conflicting: boolean } {
  const [first, ...rest] = rows;
  if (!first) throw new Error('mergeCensusRows: no rows');
  const merged: CensusRow = { ...first, mcs: [...first.mcs], otherNames: [...first.otherNames ?? []], unreadable: [...first.unreadable ?? []] };
  let conflicting = false;
  for (const row of rest) {
    const differs = row.status !== merged.status || row.safetyRating !== merged.safetyRating || row.hazmat !== merged.hazmat
      || row.mcs150Date !== merged.mcs150Date || row.addDate !== merged.addDate || row.legalName !== merged.legalName
      || row.dbaName !== merged.dbaName || row.mcs.join() !== merged.mcs.join();
    conflicting ||= differs;
    if (merged.status === 'A' && row.status !== 'A') merged.status = row.status;
    if (RATING_RANK.indexOf(row.safetyRating) > RATING_RANK.indexOf(merged.safetyRating)) merged.safetyRating = row.safetyRating;
    merged.hazmat ||= row.hazmat;
    merged.mcs150Date = merged.mcs150Date === null || row.mcs150Date === null ? null
      : merged.mcs150Date < row.mcs150Date ? merged.mcs150Date : row.mcs150Date;
    if (row.addDate !== null && (merged.addDate === null || row.addDate > merged.addDate)) merged.addDate = row.addDate;
    for (const mc of row.mcs) if (!merged.mcs.includes(mc)) merged.mcs.push(mc);
    for (const name of [row.legalName, row.dbaName]) {
      if (name && name !== merged.legalName && name !== merged.dbaName && !merged.otherNames!.includes(name)) merged.otherNames!.push(name);
    }
    for (const field of row.unreadable ?? []) if (!merged.unreadable!.includes(field)) merged.unreadable!.push(field);
  }
  if (merged.otherNames!.length === 0) delete merged.otherNames;
  if (merged.unreadable!.length === 0) delete merged.unreadable;
  return { row: merged, conflicting };
}
