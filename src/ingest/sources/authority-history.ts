// Authority history: the evidence that clears a revocation. A revocation that took effect is lifted only by a later
// grant or reinstatement of carrier authority, never by the date of a file that says "active". Reads legacy AuthHist
// (9 headerless fields, or the Socrata view 9mw4-x3tu with headers; MM/DD/YYYY) and Motus AuthHist (headers,
// USDOT_NUMBER, OP_AUTH_STATUS + STATUS_CHANGE_DATE, YYYYMMDD).
import { readCsv } from '../csv.js';
import { IngestError } from '../errors.js';
import { HeaderMap, looksLikeHeader, positionalReader, type RowReader } from '../fields.js';
import { mcKey, SourceStats, type LoadContext } from './common.js';
import { LEGACY_DATE_FORMATS, MOTUS_DATE_FORMATS } from './insurance.js';
import { isCarrierAuthority } from './revocations.js';

const LEGACY = ['DOCKET_NUMBER', 'DOT_NUMBER', 'SUB_NUMBER', 'OP_AUTH_TYPE', 'ORIGINAL_ACTION_DESC', 'ORIG_SERVED_DATE',
  'DISP_ACTION_DESC', 'DISP_DECIDED_DATE', 'DISP_SERVED_DATE'] as const;

/** Legacy actions that (re)establish authority: a grant, a reinstatement, a revocation discontinued. */
const LEGACY_GRANT = /^(GRANTED|REINSTATED|REINSTATEMENT|DISCONTINUED REVOCATION)\b/i;

/**
 * The dates on which a docket's carrier authority was granted or reinstated, per docket: only the latest is kept.
 * `wanted` limits the table to dockets some revocation names (the only ones it can clear).
 */
export async function loadAuthorityHistory(
  file: string, context: LoadContext, stats: SourceStats, wanted: ReadonlySet<number> | null = null,
): Promise<Map<number, string>> {
  const grants = new Map<number, string>();
  let header: HeaderMap | null = null;
  let motus = false;
  let first = true;
  const keep = (mc: number, on: string | null) => {
    if (on === null || on > context.today) return;
    const known = grants.get(mc);
    if (known === undefined || on > known) grants.set(mc, on);
  };
  for await (const { row, cells } of readCsv(file, { onBytes: context.onBytes })) {
    if (first) {
      first = false;
      if (looksLikeHeader(cells)) {
        motus = cells.some((cell) => cell.trim().toUpperCase() === 'USDOT_NUMBER');
        header = new HeaderMap(file, cells, motus ? ['DOCKET_NUMBER', 'OP_AUTH_TYPE', 'OP_AUTH_STATUS', 'STATUS_CHANGE_DATE']
          : ['DOCKET_NUMBER', 'OP_AUTH_TYPE', 'ORIGINAL_ACTION_DESC', 'ORIG_SERVED_DATE', 'DISP_ACTION_DESC', 'DISP_SERVED_DATE'],
        motus ? MOTUS_DATE_FORMATS : LEGACY_DATE_FORMATS);
        continue;
      }
      if (cells.length !== LEGACY.length) throw new IngestError(file, row, null, `unrecognised layout: ${cells.length} fields and no header`);
    }
    stats.rows += 1;
    const fields: RowReader = header ? header.reader(row, cells) : positionalReader(file, row, cells, LEGACY, LEGACY.length, LEGACY_DATE_FORMATS);
    const mc = mcKey(fields.text('DOCKET_NUMBER'));
    if (mc === null) { stats.skip('not an MC docket'); continue; }
    if (!isCarrierAuthority(fields.text('OP_AUTH_TYPE'))) { stats.skip('not carrier authority'); continue; }
    // Served and status-change dates record past actions: the newest dates the file's content.
    const dates = motus ? [fields.pastDate('STATUS_CHANGE_DATE', context.nowMs)]
      : [fields.pastDate('ORIG_SERVED_DATE', context.nowMs), fields.pastDate('DISP_SERVED_DATE', context.nowMs)];
    for (const date of dates) stats.seen(date);
    if (wanted !== null && !wanted.has(mc)) { stats.skip('no revocation to clear'); continue; }
    if (motus) {
      // A status change to Active is a grant or a reinstatement, dated by the change.
      if (fields.text('OP_AUTH_STATUS').toUpperCase() === 'ACTIVE') keep(mc, dates[0] ?? null);
      continue;
    }
    if (LEGACY_GRANT.test(fields.text('ORIGINAL_ACTION_DESC'))) keep(mc, dates[0] ?? null);
    if (LEGACY_GRANT.test(fields.text('DISP_ACTION_DESC'))) keep(mc, dates[1] ?? null);
  }
  return grants;
}
