import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readCsv } from '../../src/ingest/csv.js';
import { CsvRecordSplitter, type CsvRow } from '../../src/ingest/csv-records.js';
import { AuthorityByMc, McsByDot } from '../../src/ingest/sources/authority-table.js';
import { InsuranceTable } from '../../src/ingest/sources/insurance.js';
import { SlotIndex } from '../../src/ingest/slot-index.js';

/** Splits text fed in the given pieces (so records cross chunk boundaries), as [row, cells] pairs. */
function split(pieces: string[]): Array<[number, string[]]> {
  const splitter = new CsvRecordSplitter('f.csv');
  const out: CsvRow[] = [];
  pieces.forEach((piece, i) => splitter.feed(piece, i === pieces.length - 1, out));
  return out.map((row) => [row.row, row.cells]);
}

describe('CSV record splitter (fast-csv compatible)', () => {
  it('splits plain, CRLF and lone-CR lines; drops empty records without counting them', () => {
    expect(split(['a,b\r\n\r\n,,\nc,\rd'])).toEqual([[1, ['a', 'b']], [2, ['c', '']], [3, ['d']]]);
    expect(split(['a,b\rc', ',d\r', 'e'])).toEqual([[1, ['a', 'b']], [2, ['c', 'd']], [3, ['e']]]);
  });
  it('quoted fields: commas, doubled quotes, embedded newlines, blanks around quotes, across chunk boundaries', () => {
    const text = '"MC1", "a,b" ,"say ""hi"""\r\n"multi\nline",x"y\n';
    const expected = [[1, ['MC1', 'a,b', 'say "hi"']], [2, ['multi\nline', 'x"y']]];
    expect(split([text])).toEqual(expected);
    for (let cut = 1; cut < text.length; cut++) expect(split([text.slice(0, cut), text.slice(cut)])).toEqual(expected);
  });
  it('keeps fast-csv quirks: blanks before the first delimiter dropped, other unquoted blanks kept', () => {
    expect(split([' ,a, b \n'])).toEqual([[1, ['', 'a', ' b ']]]);
  });
  it('a missing closing quote or text after a closing quote aborts naming file and row', () => {
    expect(() => split(['a\n"open,b\n'])).toThrow('f.csv, row 2: missing closing quote');
    expect(() => split(['"a"b,c\n'])).toThrow('f.csv, row 1: text after a closing quote');
    const unbalanced = ['x\n"never closed,', ...Array.from({ length: 80 }, () => 'y'.repeat(65_536)), 'z'];
    expect(() => split(unbalanced)).toThrow(/f\.csv, row 2: record longer than \d+ characters \(unbalanced quote\?\)/);
  });
  it('readCsv strips a BOM and the trailing Ctrl-Z line, keeping physical row numbers', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ce-csv-'));
    const path = join(dir, 'x.csv');
    await writeFile(path, '\uFEFFA,B\r\n1,"2"\r\n\x1A', 'utf8');
    const rows: CsvRow[] = [];
    for await (const row of readCsv(path)) rows.push(row);
    expect(rows).toEqual([{ row: 1, cells: ['A', 'B'] }, { row: 2, cells: ['1', '2'] }]);
  });
});

describe('compact join tables', () => {
  it('SlotIndex: dense slots, 10-digit DOT keys, growth past the initial size', () => {
    const dots = new SlotIndex('dot', 4);
    expect(dots.add(9_876_543_210)).toBe(0);
    for (let i = 1; i <= 5000; i++) expect(dots.add(i * 7919)).toBe(i);
    expect(dots.get(9_876_543_210)).toBe(0);
    expect(dots.get(2500 * 7919)).toBe(2500);
    expect(dots.get(1)).toBe(-1);
    expect(() => new SlotIndex('mc').add(2 ** 31)).toThrow(RangeError);
  });
  it('McsByDot: MCs per DOT in first-seen order, without duplicates', () => {
    const table = new McsByDot();
    table.add(30, 3);
    table.add(10, 1);
    table.add(30, 2);
    table.add(30, 3);
    table.add(20, 5);
    expect(table.get(30)).toEqual([3, 2]);
    expect(table.get(10)).toEqual([1]);
    expect(table.get(15)).toBeUndefined();
  });
  it('tables sharing one MC index keep their own membership', () => {
    const slots = new SlotIndex('mc');
    const authority = new AuthorityByMc(slots);
    const insurance = new InsuranceTable(slots);
    insurance.addPolicy(insurance.slot(7), 0, 750_000, '2030-01-01');
    authority.set(9, { dot: null, status: 'active', revocationFlagged: false, bipdRequiredUsd: 750_000, bipdOnFileUsd: null, covers: 1 });
    expect(authority.has(7)).toBe(false);
    expect(insurance.get(9)).toBeUndefined();
    expect(insurance.get(7)).toMatchObject({ bipdOnFileUsd: 750_000, bipdAfterCancellationUsd: 0, cancellationOn: '2030-01-01' });
    expect([...authority.keys()]).toEqual([9]);
    expect(authority.get(9)).toEqual({ dot: null, status: 'active', revocationFlagged: false, bipdRequiredUsd: 750_000, bipdOnFileUsd: null, covers: 1 });
  });
});

describe('CSV record splitter against fast-csv as the oracle', () => {
  it('splits 2,000 generated well-formed documents exactly as fast-csv parses them', async () => {
    const { parseString } = await import('fast-csv');
    let seed = 7;
    const next = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed % n;
    };
    const plain = ['', 'MC012892', '00344554', 'A', 'HULL CO-OP', '750', 'x y', '-0- '];
    const quotedOnly = ['a,b', 'say "hi"', 'two\nlines', 'cr\r\nlf', ''];
    const cell = () => (next(3) === 0 ? `"${(quotedOnly[next(quotedOnly.length)] ?? '').replaceAll('"', '""')}"` : plain[next(plain.length)] ?? '');
    const documents = Array.from({ length: 2000 }, () => {
      const width = 1 + next(6);
      const lines = Array.from({ length: 1 + next(5) }, () => Array.from({ length: width }, cell).join(','));
      return lines.join(next(2) === 0 ? '\r\n' : '\n') + (next(2) === 0 ? '\r\n' : '');
    });
    for (const document of documents) {
      const expected = await new Promise<string[][]>((resolve, reject) => {
        const rows: string[][] = [];
        parseString(document, { headers: false, ignoreEmpty: true })
          .on('data', (row: string[]) => rows.push(row)).on('error', reject).on('end', () => resolve(rows));
      });
      const pieces = [document.slice(0, next(document.length + 1)), document.slice(0)];
      pieces[1] = document.slice(pieces[0]?.length ?? 0);
      expect(split(pieces).map(([, cells]) => cells), JSON.stringify(document)).toEqual(expected);
    }
  });
});
