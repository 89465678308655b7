// Company Census File (az4n-8mr2) CSV: mapped BY HEADER NAME (case-insensitive) because the column set drifts
// (137 vs 147 columns seen). Yields one compact row per DOT record; the record builder joins the rest.
import { readCsvBatches } from '../csv.js';
import { IngestError } from '../errors.js';
import { HeaderMap, type RowReader } from '../fields.js';
import { dotKey, mcKey, SourceStats, type LoadContext } from './common.js';

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
  /** Physical address (PHY_CITY/STATE/ZIP/COUNTRY when the file has them): watchlist matching evidence, not stored. */
  place: { country: string; state: string; city: string; zip: string } | null;
}

export const CENSUS_REQUIRED = ['DOT_NUMBER', 'LEGAL_NAME', 'DBA_NAME', 'STATUS_CODE', 'MCS150_DATE', 'SAFETY_RATING',
  'HM_IND', 'DOCKET1PREFIX', 'DOCKET1'] as const;
const SAFETY_RATINGS = new Set(['S', 'C', 'U']);
const DOCKETS = [1, 2, 3].map((n) => ({ prefix: `DOCKET${n}PREFIX`, number: `DOCKET${n}` }));
const HAZMAT = /^(Y|X|TRUE|1)$/i;

export async function* readCensus(file: string, context: LoadContext, stats: SourceStats): AsyncGenerator<CensusRow> {
  let header: HeaderMap | null = null;
  for await (const batch of readCsvBatches(file, { onBytes: context.onBytes })) {
    for (const { row, cells } of batch) {
      if (!header) {
        header = new HeaderMap(file, cells, CENSUS_REQUIRED, CENSUS_DATE_FORMATS);
        continue;
      }
      stats.rows += 1;
      const parsed = censusRow(file, header, header.reader(row, cells), context.nowMs);
      // The newest filing or registration date is the census's content as-of (a lower bound on the extract date).
      stats.seen(parsed.mcs150Date);
      stats.seen(parsed.addDate);
      yield parsed;
    }
  }
}

/** The census writes YYYYMMDD, sometimes with " 0000" (data-formats §2.1); nothing else is a census date. */
export const CENSUS_DATE_FORMATS = ['ymd'] as const;

function censusRow(file: string, header: HeaderMap, fields: RowReader, nowMs: number): CensusRow {
  const row = fields.row;
  const dot = dotKey(fields.text('DOT_NUMBER'));
  if (dot === null) throw new IngestError(file, row, 'DOT_NUMBER', `not a DOT number: "${fields.text('DOT_NUMBER')}"`);
  const legalName = fields.text('LEGAL_NAME');
  if (legalName === '') throw new IngestError(file, row, 'LEGAL_NAME', 'empty legal name');
  const rating = fields.text('SAFETY_RATING').toUpperCase();
  if (rating !== '' && !SAFETY_RATINGS.has(rating)) throw new IngestError(file, row, 'SAFETY_RATING', `unknown rating "${rating}"`);
  const mcs: number[] = [];
  for (const docket of DOCKETS) {
    const prefix = fields.text(docket.prefix).toUpperCase();
    const number = fields.text(docket.number);
    if (prefix !== 'MC' || number === '') continue;
    const mc = mcKey(`MC${number}`);
    if (mc === null) throw new IngestError(file, row, docket.number, `not a docket number: "${number}"`);
    if (!mcs.includes(mc)) mcs.push(mc);
  }
  return {
    row, dot, legalName,
    dbaName: fields.text('DBA_NAME') || null,
    status: fields.text('STATUS_CODE').toUpperCase() || null,
    mcs150Date: fields.pastDate('MCS150_DATE', nowMs),
    addDate: header.has('ADD_DATE') ? fields.pastDate('ADD_DATE', nowMs) : null,
    safetyRating: rating || null,
    hazmat: HAZMAT.test(fields.text('HM_IND')),
    mcs,
    place: header.has('PHY_STATE')
      ? { country: fields.text('PHY_COUNTRY'), state: fields.text('PHY_STATE'), city: fields.text('PHY_CITY'), zip: fields.text('PHY_ZIP') }
      : null,
  };
}
