// New Entrant Out-of-Service orders (Socrata p2mt-9ige): keyed by DOT. An order is in force only when
// STATUS is ACTIVE and RESCIND_DATE is empty: real rows say ACTIVE and still carry a rescind date.
import { readCsv } from '../csv.js';
import { IngestError } from '../errors.js';
import { HeaderMap, type RowReader } from '../fields.js';
import { CODES, CodedFields } from '../coded-fields.js';
import { readOrQuarantine } from '../quarantine.js';
import { dotKey, SourceStats, type LoadContext } from './common.js';

/** p2mt-9ige writes ISO dates, possibly with a time part (data-formats §4). */
export const OOS_DATE_FORMATS = ['iso'] as const;

export interface OosOrder {
  since: string | null;
  reason: string;
}

export async function loadOosOrders(file: string, context: LoadContext, stats: SourceStats): Promise<Map<number, OosOrder>> {
  const byDot = new Map<number, OosOrder>();
  const coded = context.coded ?? new CodedFields();
  let header: HeaderMap | null = null;
  for await (const { row, cells } of readCsv(file, { onBytes: context.onBytes })) {
    if (!header) {
      header = new HeaderMap(file, cells, ['DOT_NUMBER', 'OOS_DATE', 'OOS_REASON', 'STATUS', 'RESCIND_DATE'], OOS_DATE_FORMATS);
      continue;
    }
    stats.rows += 1;
    const fields = header.reader(row, cells);
    readOrQuarantine(context.quarantine, 'oos', () => addOosRow(file, fields, byDot, context, stats, coded),
      () => ({ dot: dotKey(fields.text('DOT_NUMBER')) }));
  }
  return byDot;
}

function addOosRow(file: string, fields: RowReader, byDot: Map<number, OosOrder>, context: LoadContext, stats: SourceStats, coded: CodedFields): void {
  const row = fields.row;
  const dot = dotKey(fields.text('DOT_NUMBER'));
  if (dot === null) throw new IngestError(file, row, 'DOT_NUMBER', `not a DOT number: "${fields.text('DOT_NUMBER')}"`);
  const since = fields.pastDate('OOS_DATE', context.nowMs);
  const rescind = fields.date('RESCIND_DATE');
  stats.seen(since);
  // A rescind date still ahead has not rescinded anything yet: the order stays in force (fail closed).
  const rescinded = rescind !== null && rescind <= context.today;
  if (rescinded) stats.seen(rescind);
  const status = fields.text('STATUS').toUpperCase();
  // Only a known not-in-force status lifts an order; an unknown or blank one keeps it in force (and is counted).
  const known = coded.note('oos.STATUS', status, CODES.oosStatus) === 'known';
  if ((known && status !== 'ACTIVE') || rescinded) { stats.skip('rescinded or not active'); return; }
  const previous = byDot.get(dot);
  if (!previous || (since !== null && (previous.since === null || since < previous.since))) {
    byDot.set(dot, { since, reason: fields.text('OOS_REASON') || 'out-of-service order' });
  }
}
