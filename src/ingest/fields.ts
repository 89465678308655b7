// Field-level parsing shared by every source: dates in the three layouts the public files use, amounts, nulls,
// and header-name column mapping (case-insensitive, never by position).
import { IngestError } from './errors.js';

/** OFAC writes "-0-" (often "-0- ") for null; everyone else writes an empty string. */
export function cleanCell(raw: string | undefined): string {
  const value = (raw ?? '').trim();
  return value === '-0-' ? '' : value;
}

function iso(year: number, month: number, day: number): string | null {
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return null;
  return date.toISOString().slice(0, 10);
}

/**
 * Parses MM/DD/YYYY (legacy L&I, SAM), YYYYMMDD with an optional " 0000" time (census, Motus) and
 * YYYY-MM-DD with an optional time part (OOS, SAM Creation_Date). Returns ISO YYYY-MM-DD, null for empty,
 * undefined for anything unparseable (the caller turns that into an IngestError naming the row).
 */
export function parseDate(raw: string): string | null | undefined {
  // The files repeat a few thousand distinct dates millions of times: cache the answers. Keys are copied
  // (' ' + s).slice(1) so a cached key never pins the 1 MB read chunk a cell was sliced from.
  const cached = DATE_CACHE.get(raw);
  if (cached !== undefined || DATE_CACHE.has(raw)) return cached;
  const parsed = parseDateUncached(raw);
  if (DATE_CACHE.size >= DATE_CACHE_MAX) DATE_CACHE.clear();
  DATE_CACHE.set((' ' + raw).slice(1), parsed);
  return parsed;
}

const DATE_CACHE = new Map<string, string | null | undefined>();
const DATE_CACHE_MAX = 50_000;

function parseDateUncached(raw: string): string | null | undefined {
  const value = raw.trim();
  if (value === '') return null;
  let match = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(value);
  if (match) return iso(Number(match[3]), Number(match[1]), Number(match[2])) ?? undefined;
  match = /^(\d{4})(\d{2})(\d{2})(?:\s+\d{4,6})?$/.exec(value);
  if (match) return iso(Number(match[1]), Number(match[2]), Number(match[3])) ?? undefined;
  match = /^(\d{4})-(\d{2})-(\d{2})(?:[T ][\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$/.exec(value);
  if (match) return iso(Number(match[1]), Number(match[2]), Number(match[3])) ?? undefined;
  return undefined;
}

/** Non-negative integer amount; null for empty; undefined when not a number. Commas and "$" tolerated. */
export function parseAmount(raw: string): number | null | undefined {
  const value = raw.trim().replace(/[$,]/g, '');
  if (value === '') return null;
  if (!/^\d+(\.\d+)?$/.test(value)) return undefined;
  return Math.round(Number(value));
}

/** Reads typed fields of one row, turning bad values into an IngestError naming file, row and field. */
export class RowReader {
  constructor(
    readonly file: string, readonly row: number, private readonly cells: string[],
    private readonly position: (field: string) => number,
  ) {}

  text(field: string): string {
    const position = this.position(field);
    return cleanCell(position < 0 ? '' : this.cells[position]);
  }

  date(field: string): string | null {
    const raw = this.text(field);
    const parsed = parseDate(raw);
    if (parsed === undefined) throw new IngestError(this.file, this.row, field, `not a date: "${raw}"`);
    return parsed;
  }

  amount(field: string): number | null {
    const raw = this.text(field);
    const parsed = parseAmount(raw);
    if (parsed === undefined) throw new IngestError(this.file, this.row, field, `not an amount: "${raw}"`);
    return parsed;
  }

  fail(field: string, why: string): never {
    throw new IngestError(this.file, this.row, field, why);
  }
}

/** Maps header names (case-insensitive) to column positions; throws naming the first missing required one. */
export class HeaderMap {
  private readonly index = new Map<string, number>();
  /** Field names exactly as callers spell them → position, so a row lookup skips toUpperCase. */
  private readonly asAsked = new Map<string, number>();
  private readonly lookup = (field: string): number => {
    let position = this.asAsked.get(field);
    if (position === undefined) {
      position = this.index.get(field.toUpperCase()) ?? -1;
      this.asAsked.set(field, position);
    }
    return position;
  };

  constructor(readonly file: string, header: string[], required: readonly string[]) {
    header.forEach((name, position) => {
      const key = name.replace(/^\uFEFF/, '').trim().toUpperCase();
      if (!this.index.has(key)) this.index.set(key, position);
    });
    for (const name of required) {
      if (!this.index.has(name.toUpperCase())) throw new IngestError(file, 1, name, 'required column missing from header');
    }
  }

  has(name: string): boolean {
    return this.index.has(name.toUpperCase());
  }

  reader(row: number, cells: string[]): RowReader {
    return new RowReader(this.file, row, cells, this.lookup);
  }
}

/** Per layout (names array), field name → position, built once instead of names.indexOf per field per row. */
const POSITIONS = new WeakMap<readonly string[], (field: string) => number>();

function positionsOf(names: readonly string[]): (field: string) => number {
  let lookup = POSITIONS.get(names);
  if (!lookup) {
    const map = new Map<string, number>();
    names.forEach((name, position) => { if (!map.has(name)) map.set(name, position); });
    lookup = (field) => map.get(field) ?? -1;
    POSITIONS.set(names, lookup);
  }
  return lookup;
}

/** Positional reader for headerless legacy files, checking the field count first. */
export function positionalReader(
  file: string, row: number, cells: string[], names: readonly string[], minFields: number,
): RowReader {
  if (cells.length < minFields) {
    throw new IngestError(file, row, null, `expected ${minFields} fields, found ${cells.length}`);
  }
  return new RowReader(file, row, cells, positionsOf(names));
}

/** A header row starts with a column name, never with a docket ("MC123") or a digit. */
export function looksLikeHeader(cells: string[]): boolean {
  const first = cleanCell(cells[0]).replace(/^\uFEFF/, '');
  return /^[A-Za-z_ ]+$/.test(first) && !/^(MC|FF|MX)\d/i.test(first);
}
