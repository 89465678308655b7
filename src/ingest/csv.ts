// Streaming CSV rows, never buffering a whole file. Always parses headerless and lets callers map header names
// themselves, so one reader serves headed (Motus, census, SAM) and headerless (legacy L&I, OFAC) files alike.
// Strips OFAC's trailing Ctrl-Z (\x1A) line and counts bytes for progress. The splitting itself lives in
// csv-records.ts (a hand-written replacement for fast-csv, which was the ingest's bottleneck).
import { createReadStream } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { CsvRecordSplitter, type CsvRow } from './csv-records.js';
import { IngestError } from './errors.js';

export type { CsvRow } from './csv-records.js';

export interface CsvReadOptions {
  encoding?: BufferEncoding;
  /**
   * Called with the number of bytes read so far (for progress bars) and the chunk just read, so the caller can
   * hash the file while it streams (no second read for the SHA-256 recorded in the snapshot meta).
   */
  onBytes?: (bytes: number, chunk: Buffer) => void;
  /**
   * Every record must have as many fields as the file's first record (default true). A truncated row, a row cut at
   * end of file or a stray delimiter is refused here for every layout, headed or not, before any loader maps it.
   */
  uniformWidth?: boolean;
}

const CTRL_Z = /\x1A/g;

function isBlank(cells: string[]): boolean {
  // Fast exit for the usual row: a first cell with a visible character.
  const first = cells[0] ?? '';
  if (first.length > 0 && first.charCodeAt(0) > 32 && first.charCodeAt(0) !== 0x1a) return false;
  return cells.every((cell) => cell.replace(CTRL_Z, '').trim() === '');
}

/** Rows in batches (one per 256 KB read: small enough that rows die young instead of being promoted to the old heap), so hot loaders pay one await per batch instead of one per row. */
export async function* readCsvBatches(file: string, options: CsvReadOptions = {}): AsyncGenerator<CsvRow[]> {
  const input = createReadStream(file, { highWaterMark: 1 << 16 });
  const decoder = new StringDecoder(options.encoding ?? 'utf8');
  const splitter = new CsvRecordSplitter(file);
  let bytes = 0;
  let width = -1;
  const uniform = options.uniformWidth ?? true;
  const clean = (rows: CsvRow[]): CsvRow[] => {
    const kept: CsvRow[] = [];
    for (const row of rows) {
      if (isBlank(row.cells)) continue;
      const first = row.cells[0];
      if (first !== undefined && first.startsWith('\x1A')) row.cells[0] = first.replace(CTRL_Z, '');
      if (uniform) {
        if (width < 0) width = row.cells.length;
        else if (row.cells.length !== width) throw new IngestError(file, row.row, null, `expected ${width} fields, found ${row.cells.length}`);
      }
      kept.push(row);
    }
    return kept;
  };
  for await (const chunk of input as AsyncIterable<Buffer>) {
    bytes += chunk.length;
    options.onBytes?.(bytes, chunk);
    const rows: CsvRow[] = [];
    splitter.feed(decoder.write(chunk), false, rows);
    if (rows.length > 0) yield clean(rows);
  }
  const rows: CsvRow[] = [];
  splitter.feed(decoder.end(), true, rows);
  if (rows.length > 0) yield clean(rows);
}

export async function* readCsv(file: string, options: CsvReadOptions = {}): AsyncGenerator<CsvRow> {
  for await (const rows of readCsvBatches(file, options)) yield* rows;
}
