// OFAC (SDN and consolidated non-SDN: prim + alt files, headerless, Latin-1, "-0-" nulls, CRLF, Ctrl-Z) and
// SAM.gov Exclusions Public V2 (header row, active records only) loaded into the name-matching index.
import type { ListEntry, WatchlistIndex } from '../../match/watchlist-index.js';
import { readCsv } from '../csv.js';
import { IngestError } from '../errors.js';
import { cleanCell, HeaderMap, parseDate } from '../fields.js';
import { SourceStats, type LoadContext } from './common.js';

export interface OfacEntity {
  individual: boolean;
  program: string;
}

const OFAC_PRIM_FIELDS = 12;
const OFAC_ALT_FIELDS = 5;

/** sdn.csv / cons_prim.csv: ent_num, SDN_Name, SDN_Type, Program, ... Vessels and aircraft are not carriers. */
export async function loadOfacPrimary(
  file: string, list: 'ofac_sdn' | 'ofac_cons', index: WatchlistIndex, context: LoadContext, stats: SourceStats,
): Promise<Map<string, OfacEntity>> {
  const entities = new Map<string, OfacEntity>();
  for await (const { row, cells } of readCsv(file, { encoding: 'latin1', onBytes: context.onBytes })) {
    if (cells.length < OFAC_PRIM_FIELDS) throw new IngestError(file, row, null, `expected ${OFAC_PRIM_FIELDS} fields, found ${cells.length}`);
    stats.rows += 1;
    const id = cleanCell(cells[0]);
    const name = cleanCell(cells[1]);
    if (!/^\d+$/.test(id)) throw new IngestError(file, row, 'ent_num', `not an entry number: "${id}"`);
    if (name === '') throw new IngestError(file, row, 'SDN_Name', 'empty name');
    const type = cleanCell(cells[2]).toLowerCase();
    if (type === 'vessel' || type === 'aircraft') { stats.skip(type); continue; }
    const entity = { individual: type === 'individual', program: cleanCell(cells[3]) };
    entities.set(id, entity);
    index.add(ofacEntry(list, id, name, entity));
  }
  return entities;
}

/** alt.csv: ent_num, alt_num, alt_type, alt_name, alt_remarks. Aliases of skipped entries are skipped too. */
export async function loadOfacAliases(
  file: string, list: 'ofac_sdn' | 'ofac_cons', entities: Map<string, OfacEntity>, index: WatchlistIndex,
  context: LoadContext, stats: SourceStats,
): Promise<void> {
  for await (const { row, cells } of readCsv(file, { encoding: 'latin1', onBytes: context.onBytes })) {
    if (cells.length < OFAC_ALT_FIELDS - 1) throw new IngestError(file, row, null, `expected ${OFAC_ALT_FIELDS} fields, found ${cells.length}`);
    stats.rows += 1;
    const entity = entities.get(cleanCell(cells[0]));
    const name = cleanCell(cells[3]);
    if (!entity) { stats.skip('alias of an entry not loaded'); continue; }
    if (name === '') { stats.skip('empty alias'); continue; }
    index.add(ofacEntry(list, cleanCell(cells[0]), name, entity));
  }
}

function ofacEntry(list: 'ofac_sdn' | 'ofac_cons', id: string, name: string, entity: OfacEntity): ListEntry {
  return { list, entry_id: id, name, individual: entity.individual, note: entity.program ? `program ${entity.program}` : undefined };
}

export interface SamLoadResult {
  /** Newest `Creation_Date` in the file (ISO YYYY-MM-DD): the extract's content as-of; null when absent (V1). */
  asOf: string | null;
}

/** SAM V2: active when Termination Date is empty, "Indefinite" or not yet passed. */
export async function loadSamExclusions(file: string, index: WatchlistIndex, context: LoadContext, stats: SourceStats): Promise<SamLoadResult> {
  let header: HeaderMap | null = null;
  let asOf: string | null = null;
  for await (const { row, cells } of readCsv(file, { onBytes: context.onBytes })) {
    if (!header) {
      header = new HeaderMap(file, cells, ['Classification', 'Name', 'First', 'Last', 'Termination Date', 'SAM Number']);
      continue;
    }
    stats.rows += 1;
    const fields = header.reader(row, cells);
    // Read before any skip: a terminated row still tells how recent the extract is.
    const created = fields.text('Creation_Date');
    if (created !== '') {
      const day = parseDate(created);
      if (day === undefined) throw new IngestError(file, row, 'Creation_Date', `not a date: "${created}"`);
      if (day !== null && (asOf === null || day > asOf)) asOf = day;
    }
    const termination = fields.text('Termination Date');
    if (termination !== '' && !/^indefinite$/i.test(termination)) {
      const until = parseDate(termination);
      if (until === undefined) throw new IngestError(file, row, 'Termination Date', `not a date: "${termination}"`);
      if (until !== null && until < context.today) { stats.skip('terminated'); continue; }
    }
    const classification = fields.text('Classification');
    if (/^vessel$/i.test(classification)) { stats.skip('vessel'); continue; }
    const person = [fields.text('First'), fields.text('Middle'), fields.text('Last')].filter(Boolean).join(' ');
    const name = fields.text('Name') || person;
    if (name === '') { stats.skip('no name'); continue; }
    const id = fields.text('SAM Number') || `row${row}`;
    const note = [classification, fields.text('Exclusion Type'), fields.text('Excluding Agency')].filter(Boolean).join('; ');
    const entry: ListEntry = { list: 'sam', entry_id: id, name, individual: false, note };
    index.add(entry);
    if (person && person !== name) index.add({ ...entry, name: person });
    // Firms named in a cross-reference ("(also TERRA KLEAN SOLUTIONS INC.)") are excluded along with the person.
    const alias = /\(also ([^)]+)\)/i.exec(fields.text('Cross-Reference'))?.[1];
    if (alias) index.add({ ...entry, name: alias.trim() });
  }
  return { asOf };
}
