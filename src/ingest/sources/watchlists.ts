// OFAC (SDN and consolidated non-SDN: prim + alt + add files, headerless, Latin-1, "-0-" nulls, CRLF, Ctrl-Z) and
// SAM.gov Exclusions Public V2 (header row, active records only) loaded into the name-matching index, with the
// listed addresses (OFAC add.csv, SAM address columns), programs and identifiers the matcher uses as evidence.
import { parseOfacPlace, place } from '../../match/address.js';
import { classifyName } from '../../match/person-name.js';
import { splitPrograms } from '../../match/programs.js';
import type { ListEntry, WatchlistIndex } from '../../match/watchlist-index.js';
import { readCsv } from '../csv.js';
import { IngestError } from '../errors.js';
import { cleanCell, HeaderMap, parseDate } from '../fields.js';
import { SourceStats, type LoadContext } from './common.js';
import type { ListEntries } from '../list-diff.js';

export interface OfacEntity {
  individual: boolean;
  program: string;
}

/** Every ent_num of a primary file (vessels and aircraft included), so alias and address files can be checked against it. */
export type OfacEntities = Map<string, OfacEntity> & { listed?: Set<string> };

/** OFAC files are told apart by their width alone (no header): name what a file of another width is. */
function ofacLayoutError(file: string, row: number, expected: 'primary' | 'alias' | 'address', found: number): IngestError {
  const layouts: Record<number, string> = { 12: 'a primary file (sdn.csv / cons_prim.csv)', 5: 'an alias file (alt.csv / cons_alt.csv)', 6: 'an address file (add.csv / cons_add.csv)' };
  const wanted = { primary: 12, alias: 5, address: 6 }[expected];
  const what = layouts[found] ? `; ${found} fields is ${layouts[found]}` : '';
  return new IngestError(file, row, null, `expected ${wanted} fields (an OFAC ${expected} file), found ${found}${what}`);
}

const OFAC_PRIM_FIELDS = 12;
const OFAC_ALT_FIELDS = 5;
const OFAC_ADD_FIELDS = 6;

/** sdn.csv / cons_prim.csv: ent_num, SDN_Name, SDN_Type, Program, ... Vessels and aircraft are not carriers. */
export async function loadOfacPrimary(
  file: string, list: 'ofac_sdn' | 'ofac_cons', index: WatchlistIndex, context: LoadContext, stats: SourceStats,
  identities?: ListEntries,
): Promise<OfacEntities> {
  const entities: OfacEntities = new Map<string, OfacEntity>();
  const listed = new Set<string>();
  entities.listed = listed;
  for await (const { row, cells } of readCsv(file, { encoding: 'latin1', onBytes: context.onBytes })) {
    if (cells.length !== OFAC_PRIM_FIELDS) throw ofacLayoutError(file, row, 'primary', cells.length);
    stats.rows += 1;
    const id = cleanCell(cells[0]);
    const name = cleanCell(cells[1]);
    if (!/^\d+$/.test(id)) throw new IngestError(file, row, 'ent_num', `not an entry number: "${id}"`);
    if (listed.has(id)) throw new IngestError(file, row, 'ent_num', `entry ${id} is listed twice`);
    listed.add(id);
    if (name === '') throw new IngestError(file, row, 'SDN_Name', 'empty name');
    // Every entry is recorded (vessels and aircraft too): the next ingest names each one that disappears.
    identities?.add(id, name);
    const type = cleanCell(cells[2]).toLowerCase();
    if (type === 'vessel' || type === 'aircraft') { stats.skip(type); continue; }
    const entity = { individual: type === 'individual', program: cleanCell(cells[3]) };
    entities.set(id, entity);
    index.add(ofacEntry(list, id, name, entity, 'primary_name'));
  }
  return entities;
}

/** alt.csv: ent_num, alt_num, alt_type, alt_name, alt_remarks. Aliases of skipped entries are skipped too. */
export async function loadOfacAliases(
  file: string, list: 'ofac_sdn' | 'ofac_cons', entities: OfacEntities, index: WatchlistIndex,
  context: LoadContext, stats: SourceStats,
): Promise<IngestError | null> {
  let orphan: IngestError | null = null;
  for await (const { row, cells } of readCsv(file, { encoding: 'latin1', onBytes: context.onBytes })) {
    if (cells.length !== OFAC_ALT_FIELDS) throw ofacLayoutError(file, row, 'alias', cells.length);
    stats.rows += 1;
    const id = cleanCell(cells[0]);
    // An alias of an entry its primary file does not list: the files are of different lists or dates. Returned,
    // not thrown, so the row guards (a short primary file) speak first.
    if (entities.listed && !entities.listed.has(id)) {
      orphan ??= new IngestError(file, row, 'ent_num', `alias of entry "${id}", which the primary file does not list (files of different lists or dates?)`);
      stats.skip('alias of an entry the primary file does not list');
      continue;
    }
    const entity = entities.get(id);
    const name = cleanCell(cells[3]);
    if (!entity) { stats.skip('alias of an entry not loaded'); continue; }
    if (name === '') { stats.skip('empty alias'); continue; }
    index.add(ofacEntry(list, cleanCell(cells[0]), name, entity, 'alias'));
  }
  return orphan;
}

/**
 * add.csv / cons_add.csv: Ent_num, Add_num, Address, City/State/Province/Postal Code, Country, Add_remarks.
 * Load after the primary file: addresses of entries not loaded (vessels, aircraft) are skipped.
 */
export async function loadOfacAddresses(
  file: string, list: 'ofac_sdn' | 'ofac_cons', index: WatchlistIndex, context: LoadContext, stats: SourceStats,
  entities?: OfacEntities,
): Promise<IngestError | null> {
  let orphan: IngestError | null = null;
  for await (const { row, cells } of readCsv(file, { encoding: 'latin1', onBytes: context.onBytes })) {
    if (cells.length !== OFAC_ADD_FIELDS) throw ofacLayoutError(file, row, 'address', cells.length);
    stats.rows += 1;
    const id = cleanCell(cells[0]);
    if (!/^\d+$/.test(id)) throw new IngestError(file, row, 'Ent_num', `not an entry number: "${id}"`);
    if (entities?.listed && !entities.listed.has(id)) {
      orphan ??= new IngestError(file, row, 'Ent_num', `address of entry "${id}", which the primary file does not list (files of different lists or dates?)`);
      stats.skip('address of an entry the primary file does not list');
      continue;
    }
    const country = cleanCell(cells[4]);
    const cityStateZip = cleanCell(cells[3]);
    if (country === '' && cityStateZip === '') { stats.skip('no place'); continue; }
    if (!index.addPlace(list, id, parseOfacPlace(cityStateZip, country))) stats.skip('address of an entry not loaded');
  }
  return orphan;
}

function ofacEntry(list: 'ofac_sdn' | 'ofac_cons', id: string, name: string, entity: OfacEntity, field: 'primary_name' | 'alias'): ListEntry {
  return {
    list, entry_id: id, name, individual: entity.individual, name_field: field,
    note: entity.program ? `program ${entity.program}` : undefined, programs: splitPrograms(entity.program),
  };
}

/**
 * SAM "Cross-Reference" cells name one or more related parties: "(also TERRA KLEAN SOLUTIONS INC., ANTONIO
 * FLORES)", "(also VMC CONSTRUCTION, LLC, VMC CONSTRUCTION, LLC  DBA VICTOR TORRES CONSTRUCTION)". Commas
 * separate names, except before a legal form, which belongs to the name before it; "DBA" separates two names.
 */
export function splitCrossReference(cell: string): string[] {
  const inner = /\(\s*also\s+([^)]*)\)?/i.exec(cell)?.[1] ?? '';
  const pieces = inner.split(',').map((piece) => piece.trim()).filter(Boolean);
  const names: string[] = [];
  for (const piece of pieces) {
    // "LLC" or "LLC  DBA VICTOR TORRES CONSTRUCTION" after a comma: the form closes the name before it.
    const form = /^(L\.?L\.?C|INC|LTD|CO|CORP|L\.?P|LLP|PLLC|P\.?C|S\.?A)\.?(?:\s+(.*))?$/i.exec(piece);
    if (names.length > 0 && form) {
      names[names.length - 1] += `, ${form[1]}`;
      if (form[2]) names.push(form[2]);
    } else names.push(piece);
  }
  const out: string[] = [];
  for (const name of names) {
    for (const part of name.replace(/^D\/?B\/?A\s+/i, '').split(/\s+D\/?B\/?A\s+/i)) if (part.trim()) out.push(part.trim());
  }
  return [...new Set(out)];
}

/** Every SAM column the screening reads (names, cross-references, dates): none may be missing. */
const SAM_REQUIRED = ['Classification', 'Name', 'First', 'Middle', 'Last', 'Cross-Reference', 'Active Date', 'Termination Date', 'SAM Number'];

export interface SamLoadResult {
  /** Newest `Creation_Date` in the file (ISO YYYY-MM-DD): the extract's content as-of; null when absent (V1). */
  asOf: string | null;
}

/** SAM V2: active when Termination Date is empty, "Indefinite" or not yet passed. */
export async function loadSamExclusions(
  file: string, index: WatchlistIndex, context: LoadContext, stats: SourceStats, identities?: ListEntries,
): Promise<SamLoadResult> {
  let header: HeaderMap | null = null;
  let asOf: string | null = null;
  for await (const { row, cells } of readCsv(file, { onBytes: context.onBytes })) {
    if (!header) {
      header = new HeaderMap(file, cells, SAM_REQUIRED);
      // V2 carries Unique Entity ID and Creation_Date where V1 (2016) has DUNS; both are read, by name.
      if (!header.has('Unique Entity ID') && !header.has('DUNS')) {
        throw new IngestError(file, 1, 'Unique Entity ID', 'not a SAM Exclusions extract: neither the V2 (Unique Entity ID) nor the V1 (DUNS) layout');
      }
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
    const samNumber = fields.text('SAM Number');
    const named = () => fields.text('Name') || [fields.text('First'), fields.text('Middle'), fields.text('Last')].filter(Boolean).join(' ');
    const active = fields.text('Active Date');
    const since = active === '' ? null : parseDate(active);
    if (since === undefined) throw new IngestError(file, row, 'Active Date', `not a date: "${active}"`);
    if (termination !== '' && !/^indefinite$/i.test(termination)) {
      const until = parseDate(termination);
      if (until === undefined) throw new IngestError(file, row, 'Termination Date', `not a date: "${termination}"`);
      // An exclusion cannot end before it began: the date columns are swapped or shifted, and reading them would
      // lift every exclusion. Refused (a sanctions list is never partly read).
      if (until !== null && since !== null && until < since) {
        throw new IngestError(file, row, 'Termination Date', `"${termination}" is before the Active Date "${active}" (date columns swapped?)`);
      }
      if (until !== null && until < context.today) {
        identities?.end(samNumber, named(), until);
        stats.skip('terminated');
        continue;
      }
    }
    const classification = fields.text('Classification');
    if (/^vessel$/i.test(classification)) { stats.skip('vessel'); continue; }
    const individual = /^individual$/i.test(classification);
    const first = fields.text('First');
    const last = fields.text('Last');
    const person = [first, fields.text('Middle'), last].filter(Boolean).join(' ');
    const name = fields.text('Name') || person;
    if (name === '') { stats.skip('no name'); continue; }
    identities?.add(samNumber, name);
    const id = samNumber || `row${row}`;
    const exclusionType = fields.text('Exclusion Type');
    const note = [classification, exclusionType, fields.text('Excluding Agency')].filter(Boolean).join('; ');
    const entry: ListEntry = {
      list: 'sam', entry_id: id, name, individual, note, programs: exclusionType ? [exclusionType] : undefined,
      uei: fields.text('Unique Entity ID') || undefined, name_field: 'primary_name',
    };
    index.add(entry);
    if (person && person !== name) index.add({ ...entry, name: person });
    // Sole proprietors often leave out a middle name: the first + last form is a name of the same person.
    if (individual && first && last) index.add({ ...entry, name: `${first} ${last}` });
    // Parties named in a cross-reference are excluded along with this one; each name is its own kind.
    for (const related of splitCrossReference(fields.text('Cross-Reference'))) {
      index.add({ ...entry, name: related, individual: classifyName(related) === 'person', name_field: 'cross_reference' });
    }
    index.addPlace('sam', id, place({
      country: fields.text('Country'), state: fields.text('State / Province'), city: fields.text('City'), zip: fields.text('Zip Code'),
    }));
  }
  if (asOf) index.setListAsOf('sam', asOf);
  return { asOf };
}
