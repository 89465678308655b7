// Field-level parsing shared by every source: dates in the three layouts the public files use, amounts, nulls,
// and header-name column mapping (case-insensitive, never by position).
import { ALL_DATE_FORMATS, isFutureDay, parseCalendarDate, type DateFormat } from '../core/dates.js';
import { IngestError } from './errors.js';

/** OFAC writes "-0-" (often "-0- ") for null; everyone else writes an empty string. */
export function cleanCell(raw: string | undefined): string {
  const value = (raw ?? '').trim();
  return value === '-0-' ? '' : value;
}

/**
 * A file field's date in one of the source's `formats` (see DateFormat in core/dates.ts; default: all three, for
 * callers that do not name theirs). Returns ISO YYYY-MM-DD, null for empty, undefined for anything unparseable or
 * not a real calendar day (the caller turns that into an IngestError naming the row). The strict parsing itself
 * lives in core/dates.ts, the one date parser every input goes through.
 */
export function parseDate(raw: string, formats: readonly DateFormat[] = ALL_DATE_FORMATS): string | null | undefined {
  // The files repeat a few thousand distinct dates millions of times: cache the answers (per format list). Keys are
  // copied (' ' + s).slice(1) so a cached key never pins the 1 MB read chunk a cell was sliced from.
  let cache = DATE_CACHES.get(formats);
  if (!cache) {
    cache = new Map();
    DATE_CACHES.set(formats, cache);
  }
  const cached = cache.get(raw);
  if (cached !== undefined || cache.has(raw)) return cached;
  const parsed = parseCalendarDate(raw, formats);
  if (cache.size >= DATE_CACHE_MAX) cache.clear();
  cache.set((' ' + raw).slice(1), parsed);
  return parsed;
}

const DATE_CACHES = new WeakMap<readonly DateFormat[], Map<string, string | null | undefined>>();
const DATE_CACHE_MAX = 50_000;

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
    /** The date layouts this source writes (explicit per source; a date in any other layout is an error). */
    private readonly formats: readonly DateFormat[] = ALL_DATE_FORMATS,
  ) {}

  text(field: string): string {
    const position = this.position(field);
    return cleanCell(position < 0 ? '' : this.cells[position]);
  }

  date(field: string): string | null {
    const raw = this.text(field);
    const parsed = parseDate(raw, this.formats);
    if (parsed === undefined) throw new IngestError(this.file, this.row, field, `not a date: "${raw}"`);
    return parsed;
  }

  /**
   * A date that records something that already happened (a filing, a posting, an order served): one later than
   * the ingest's clock (beyond the skew) is refused, because it would otherwise pass as fresh data.
   */
  pastDate(field: string, nowMs: number): string | null {
    const parsed = this.date(field);
    if (parsed !== null && isFutureDay(parsed, nowMs)) {
      throw new IngestError(this.file, this.row, field, `date in the future: "${this.text(field)}"`);
    }
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

  /** Fields every data row must have: the header's own width. */
  readonly width: number;

  constructor(
    readonly file: string, header: string[], required: readonly string[],
    private readonly formats: readonly DateFormat[] = ALL_DATE_FORMATS,
  ) {
    this.width = header.length;
    header.forEach((name, position) => {
      const key = name.replace(/^\uFEFF/, '').trim().toUpperCase();
      // Two columns of one name: which copy a rule reads would be a guess, so the file is refused.
      if (this.index.has(key) && key !== '') {
        throw new IngestError(file, 1, name.trim(), `duplicated header name (columns ${(this.index.get(key) ?? 0) + 1} and ${position + 1})`);
      }
      this.index.set(key, position);
    });
    for (const name of required) {
      if (!this.index.has(name.toUpperCase())) throw new IngestError(file, 1, name, 'required column missing from header');
    }
  }

  has(name: string): boolean {
    return this.index.has(name.toUpperCase());
  }

  /** A reader for one data row; a row with more or fewer fields than the header is refused (never padded). */
  reader(row: number, cells: string[]): RowReader {
    if (cells.length !== this.width) throw widthError(this.file, row, this.width, cells.length);
    return new RowReader(this.file, row, cells, this.lookup, this.formats);
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

/** The one line a row of the wrong width gets: file, row, expected and found field counts. */
export function widthError(file: string, row: number, expected: number, found: number): IngestError {
  return new IngestError(file, row, null, `expected ${expected} fields, found ${found}`);
}

/** Positional reader for headerless legacy files: the row must have exactly `fields` fields. */
export function positionalReader(
  file: string, row: number, cells: string[], names: readonly string[], fields: number,
  formats: readonly DateFormat[] = ALL_DATE_FORMATS,
): RowReader {
  if (cells.length !== fields) throw widthError(file, row, fields, cells.length);
  return new RowReader(file, row, cells, positionsOf(names), formats);
}

/** A header row starts with a column name, never with a docket ("MC123") or a digit. */
export function looksLikeHeader(cells: string[]): boolean {
  const first = cleanCell(cells[0]).replace(/^\uFEFF/, '');
  return /^[A-Za-z_ ]+$/.test(first) && !/^(MC|FF|MX)\d/i.test(first);
}
