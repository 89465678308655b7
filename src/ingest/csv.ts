// Streaming CSV rows with fast-csv (quotes, CRLF), never buffering a whole file. Always parses headerless and
// lets callers map header names themselves, so one reader serves headed (Motus, census, SAM) and headerless
// (legacy L&I, OFAC) files alike. Strips OFAC's trailing Ctrl-Z (\x1A) line and counts bytes for progress.
import { createReadStream } from 'node:fs';
import { parse } from 'fast-csv';

export interface CsvRow {
  /** 1-based physical row number (the header, when present, is row 1). */
  row: number;
  cells: string[];
}

export interface CsvReadOptions {
  encoding?: BufferEncoding;
  /** Called with the number of bytes read so far (for progress bars). */
  onBytes?: (bytes: number) => void;
}

const CTRL_Z = /\x1A/g;

function isBlank(cells: string[]): boolean {
  return cells.every((cell) => cell.replace(CTRL_Z, '').trim() === '');
}

export async function* readCsv(file: string, options: CsvReadOptions = {}): AsyncGenerator<CsvRow> {
  const input = createReadStream(file, { encoding: options.encoding ?? 'utf8', highWaterMark: 1 << 20 });
  let bytes = 0;
  input.on('data', (chunk) => {
    bytes += chunk.length;
    options.onBytes?.(bytes);
  });
  const parser = parse<string[], string[]>({ headers: false, ignoreEmpty: true });
  input.on('error', (error) => parser.destroy(error));
  input.pipe(parser);
  let row = 0;
  for await (const cells of parser as AsyncIterable<string[]>) {
    row += 1;
    if (isBlank(cells)) continue;
    if (cells[0]?.startsWith('\x1A')) cells[0] = cells[0].replace(CTRL_Z, '');
    yield { row, cells };
  }
}
