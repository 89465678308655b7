// New Entrant Out-of-Service orders (Socrata p2mt-9ige): keyed by DOT. An order is in force only when
// STATUS is ACTIVE and RESCIND_DATE is empty: real rows say ACTIVE and still carry a rescind date.
import { readCsv } from '../csv.js';
import { IngestError } from '../errors.js';
import { HeaderMap } from '../fields.js';
import { dotKey, SourceStats, type LoadContext } from './common.js';

export interface OosOrder {
  since: string | null;
  reason: string;
}

export async function loadOosOrders(file: string, context: LoadContext, stats: SourceStats): Promise<Map<number, OosOrder>> {
  const byDot = new Map<number, OosOrder>();
  let header: HeaderMap | null = null;
  for await (const { row, cells } of readCsv(file, { onBytes: context.onBytes })) {
    if (!header) {
      header = new HeaderMap(file, cells, ['DOT_NUMBER', 'STATUS', 'RESCIND_DATE']);
      continue;
    }
    stats.rows += 1;
    const fields = header.reader(row, cells);
    const dot = dotKey(fields.text('DOT_NUMBER'));
    if (dot === null) throw new IngestError(file, row, 'DOT_NUMBER', `not a DOT number: "${fields.text('DOT_NUMBER')}"`);
    const rescinded = fields.date('RESCIND_DATE');
    if (fields.text('STATUS').toUpperCase() !== 'ACTIVE' || rescinded !== null) { stats.skip('rescinded or not active'); continue; }
    const since = fields.date('OOS_DATE');
    const previous = byDot.get(dot);
    if (!previous || (since !== null && (previous.since === null || since < previous.since))) {
      byDot.set(dot, { since, reason: fields.text('OOS_REASON') || 'out-of-service order' });
    }
  }
  return byDot;
}
