// Chooses the archive's compression by measurement: bytes per record and compression CPU per record for
// gzip and brotli over NDJSON archive lines, whole-segment and in independent blocks (a look-up decompresses one
// block), on the same mix as bench/decision-bytes.ts. Prints one JSON object.
//
//   node --import tsx bench/archive-format.ts [--records 100000]
import { parseArgs } from 'node:util';
import { brotliCompressSync, brotliDecompressSync, gzipSync, constants as zlib } from 'node:zlib';
import { encodeSegment } from '../src/decisions/archive-format.js';
import { benchLines } from './archive-lines.js';

const { values } = parseArgs({ options: { records: { type: 'string', default: '100000' } } });
const RECORDS = Number(values.records);
// 1,000 checks/s: a one-minute segment is 60,000 records.
const lines = [...benchLines(RECORDS, Date.now() - 3_600_000, 1)];
const texts = lines.map((line) => `${JSON.stringify(line)}\n`);
const raw = Buffer.from(texts.join(''));

function blocks(size: number): Buffer[] {
  const out: Buffer[] = [];
  let start = 0;
  while (start < raw.length) {
    let end = Math.min(raw.length, start + size);
    while (end < raw.length && raw[end - 1] !== 0x0a) end++;
    out.push(raw.subarray(start, end));
    start = end;
  }
  return out;
}

function measure(name: string, compress: (input: Buffer) => Buffer, blockSize: number | null) {
  const inputs = blockSize === null ? [raw] : blocks(blockSize);
  const t0 = process.hrtime.bigint();
  let bytes = 0;
  for (const input of inputs) bytes += compress(input).length;
  const ns = Number(process.hrtime.bigint() - t0);
  return { name, block_raw_bytes: blockSize, bytes_per_record: +(bytes / RECORDS).toFixed(1), compress_records_per_s: Math.round(RECORDS / (ns / 1e9)) };
}

const gzip = (level: number) => (input: Buffer) => gzipSync(input, { level });
const brotli = (quality: number) => (input: Buffer) => brotliCompressSync(input, {
  params: { [zlib.BROTLI_PARAM_QUALITY]: quality, [zlib.BROTLI_PARAM_SIZE_HINT]: input.length, [zlib.BROTLI_PARAM_LGWIN]: 22 },
});
const results = [
  measure('gzip-6 whole', gzip(6), null),
  measure('gzip-6 blocks', gzip(6), 64 * 1024),
  measure('gzip-6 blocks', gzip(6), 256 * 1024),
  measure('gzip-9 blocks', gzip(9), 64 * 1024),
  measure('brotli-5 whole', brotli(5), null),
  measure('brotli-5 blocks', brotli(5), 64 * 1024),
  measure('brotli-5 blocks', brotli(5), 256 * 1024),
  measure('brotli-6 blocks', brotli(6), 256 * 1024),
  measure('brotli-9 blocks', brotli(9), 64 * 1024),
];
// What the archiver does end to end per record: JSON line + gzip blocks + index (one core).
const t0 = process.hrtime.bigint();
const segment = encodeSegment(lines);
const encodeNs = Number(process.hrtime.bigint() - t0);
const t1 = process.hrtime.bigint();
brotliDecompressSync(segment.data.subarray(0, segment.index.blocks[0]?.[3]));
const blockNs = Number(process.hrtime.bigint() - t1);
process.stdout.write(`${JSON.stringify({
  records: RECORDS, raw_bytes_per_record: Math.round(raw.length / RECORDS), results,
  chosen: { format: 'NDJSON, brotli-5 blocks of 256 KiB raw', bytes_per_record: +(segment.data.length / RECORDS).toFixed(1),
    index_accounts: Object.keys(segment.index.accounts).length, blocks: segment.index.blocks.length,
    encode_records_per_s: Math.round(RECORDS / (encodeNs / 1e9)), one_block_decompress_ms: +(blockNs / 1e6).toFixed(2) },
}, null, 2)}\n`);
