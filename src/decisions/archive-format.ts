// The continuous archive's on-disk form (docs/decisions-archive.md): per UTC hour, segments of records sorted by
// decision id. A segment is a data file of independent compressed blocks (gzip members: the whole file is still
// one valid .gz), an index (block table + per account and MC number, which blocks hold them) and a signed
// manifest in chain/ that names both files' SHA-256, the seconds the segment covers with their record counts,
// and the SHA-256 of the previous manifest (a hash chain: a removed or altered segment breaks verification).
//
// A line is the GET /v1/decisions/{id} body without `snapshot` and without `verdict.evidence.sources`: both
// follow from the snapshot manifest, stored once under objects/snapshots/ and named with its SHA-256 by every
// manifest that uses it. Reading a line back (fromLine) gives the API's body byte for byte.
import { brotliCompressSync, brotliDecompressSync, gunzipSync, constants as zlib } from 'node:zlib';
import { z } from 'zod';
import type { SnapshotMeta } from '../core/carrier.js';
import { sourceEvidence } from '../core/evidence.js';
import type { Verdict } from '../core/verdict.js';
import type { DecisionView } from './reader.js';

export const ARCHIVE_FORMAT = 'carrier-eligibility.decision-archive/1';
/**
 * Raw bytes per compressed block: one look-up decompresses one block. Brotli quality 5 on 256 KiB blocks gave
 * 63 bytes per record against gzip-6's 85 at the same speed (bench/archive-format.ts, docs/decisions-archive.md).
 */
export const BLOCK_RAW_BYTES = 256 * 1024;
const BROTLI_QUALITY = 5;
export const DATA_SUFFIX = '.ndjson.br';

export type ArchiveLine = Omit<DecisionView, 'snapshot' | 'verdict'> & {
  verdict: Omit<Verdict, 'evidence'> & { evidence: Omit<Verdict['evidence'], 'sources'> };
};

export function toLine(view: DecisionView): ArchiveLine {
  const { snapshot: _snapshot, verdict, ...rest } = view;
  const { sources: _sources, ...evidence } = verdict.evidence;
  return { ...rest, verdict: { ...verdict, evidence } };
}

/** The API body of an archived line: the source list and manifest come back from the stored snapshot. */
export function fromLine(line: ArchiveLine, snapshot: SnapshotMeta | null): DecisionView {
  const { verdict, ...rest } = line;
  return {
    decision_id: rest.decision_id, kind: rest.kind,
    verdict: { ...verdict, evidence: { ...verdict.evidence, sources: sourceEvidence(snapshot) } } as Verdict,
    key_id: rest.key_id, account: rest.account, request_id: rest.request_id, reference: rest.reference,
    // Lines archived before overrides existed have no override_ids: none lifted them.
    override_ids: (rest as Partial<ArchiveLine>).override_ids ?? [], batch: rest.batch,
    ruleset: rest.ruleset, snapshot,
  };
}

/** [first id, last id, byte offset, compressed bytes, records] */
export type BlockEntry = [string, string, number, number, number];

export interface SegmentIndex {
  format: typeof ARCHIVE_FORMAT;
  blocks: BlockEntry[];
  /** account → MC number → block numbers holding its records. */
  accounts: Record<string, Record<string, number[]>>;
}

export interface EncodedSegment {
  data: Buffer;
  index: SegmentIndex;
  records: number;
}

/** Lines must be sorted by decision id; each block is its own brotli stream of ~BLOCK_RAW_BYTES raw bytes. */
export function encodeSegment(lines: ArchiveLine[]): EncodedSegment {
  const parts: Buffer[] = [];
  const blocks: BlockEntry[] = [];
  const accounts: SegmentIndex['accounts'] = {};
  let offset = 0;
  let start = 0;
  let text = '';
  const flush = (end: number) => {
    const first = lines[start] as ArchiveLine;
    const last = lines[end - 1] as ArchiveLine;
    const packed = brotliCompressSync(text, {
      params: { [zlib.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [zlib.BROTLI_PARAM_SIZE_HINT]: text.length, [zlib.BROTLI_PARAM_LGWIN]: 22 },
    });
    blocks.push([first.decision_id, last.decision_id, offset, packed.length, end - start]);
    parts.push(packed);
    offset += packed.length;
    start = end;
    text = '';
  };
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] as ArchiveLine;
    text += `${JSON.stringify(line)}\n`;
    const byMc = (accounts[line.account] ??= {});
    const list = (byMc[line.verdict.mc_number] ??= []);
    if (list[list.length - 1] !== blocks.length) list.push(blocks.length);
    if (text.length >= BLOCK_RAW_BYTES) flush(index + 1);
  }
  if (text !== '') flush(lines.length);
  return { data: Buffer.concat(parts), index: { format: ARCHIVE_FORMAT, blocks, accounts }, records: lines.length };
}

/**
 * The line of one id in a block, or null: only that line is parsed (a block holds ~280 lines; parsing them all
 * cost a look-up ~30 ms). A line starts with its decision_id (toLine keeps the view's key order).
 */
export function findInBlock(packed: Buffer, id: string): ArchiveLine | null {
  const text = brotliDecompressSync(packed).toString('utf8');
  const quoted = JSON.stringify(id);
  if (!text.includes(quoted)) return null;
  const needle = `{"decision_id":${quoted},`;
  const start = text.startsWith(needle) ? 0 : text.indexOf(`\n${needle}`) + 1;
  // The id is there but not where a line starts: parse every line (a line written in another key order).
  if (start === 0 && !text.startsWith(needle)) return parseLines(text).find((line) => line.decision_id === id) ?? null;
  const end = text.indexOf('\n', start);
  const line = JSON.parse(text.slice(start, end < 0 ? text.length : end)) as ArchiveLine;
  return line.decision_id === id ? line : null;
}

const parseLines = (text: string): ArchiveLine[] => text.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as ArchiveLine);

export function decodeBlock(packed: Buffer): ArchiveLine[] {
  return parseLines(brotliDecompressSync(packed).toString('utf8'));
}

/** Every line of a data file, block by block as the index cuts it; throws when the blocks do not tile the file. */
export function decodeData(data: Buffer, index: SegmentIndex): ArchiveLine[] {
  const lines: ArchiveLine[] = [];
  let expected = 0;
  for (const [first, last, offset, bytes, records] of index.blocks) {
    if (offset !== expected) throw new Error(`block at ${offset} does not follow the previous one (expected ${expected})`);
    const block = decodeBlock(data.subarray(offset, offset + bytes));
    if (block.length !== records || block[0]?.decision_id !== first || block[block.length - 1]?.decision_id !== last) {
      throw new Error(`block at ${offset} does not hold what the index says`);
    }
    lines.push(...block);
    expected = offset + bytes;
  }
  if (expected !== data.length) throw new Error(`the index covers ${expected} of ${data.length} bytes`);
  return lines;
}

/** The block that may hold `id` (blocks are sorted and disjoint), or -1. */
export function findBlock(index: SegmentIndex, id: string): number {
  let low = 0;
  let high = index.blocks.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const [first, last] = index.blocks[middle] as BlockEntry;
    if (id < first) high = middle - 1;
    else if (id > last) low = middle + 1;
    else return middle;
  }
  return -1;
}

const fileRef = z.object({ key: z.string(), sha256: z.string().regex(/^[0-9a-f]{64}$/), bytes: z.number().int().nonnegative() });

export const segmentManifestSchema = z.object({
  format: z.literal(ARCHIVE_FORMAT),
  seq: z.number().int().positive(),
  /** regular: the archiver's pass over [from, to); catch_up: records that reached Redis after their second was archived. */
  kind: z.enum(['regular', 'catch_up']),
  /** Seconds since the epoch, [from, to): never across an hour boundary. */
  from_second: z.number().int(),
  to_second: z.number().int(),
  /** Every second before this had been archived by regular segments when this one was written. */
  archived_until: z.number().int(),
  records: z.number().int().nonnegative(),
  /** [second, records] for every second that had records (eviction compares these with Redis). */
  seconds: z.array(z.tuple([z.number().int(), z.number().int().positive()])),
  data: fileRef.nullable(),
  index: fileRef.nullable(),
  /** Snapshot manifests and rule sets the records refer to: key and SHA-256 of the stored object. */
  snapshots: z.record(z.string(), fileRef),
  rulesets: z.record(z.string(), fileRef),
  previous: z.object({ seq: z.number().int().positive(), sha256: z.string() }).nullable(),
  created_at: z.string(),
  signature: z.object({ alg: z.literal('Ed25519'), public_key: z.string(), value: z.string() }),
});

export type SegmentManifest = z.infer<typeof segmentManifestSchema>;

const pad = (n: number, width: number) => String(n).padStart(width, '0');

export const HOUR_SECONDS = 3600;

/** `hours/YYYY/MM/DD/HH/` of a second. */
export function hourPrefix(second: number): string {
  const iso = new Date(second * 1000).toISOString();
  return `hours/${iso.slice(0, 4)}/${iso.slice(5, 7)}/${iso.slice(8, 10)}/${iso.slice(11, 13)}/`;
}

export function segmentBase(seq: number, from: number, to: number): string {
  return `${hourPrefix(from)}s${pad(seq, 10)}-${from}-${to}`;
}

export const manifestKey = (seq: number) => `chain/${pad(seq, 10)}.manifest.json`;
export const CHAIN_PREFIX = 'chain/';
export const HEAD_KEY = 'head.json';

const headHintSchema = z.looseObject({ seq: z.number().optional(), archived_until: z.number().optional() });

/** head.json as written by the archiver: the chain's last seq and the second archived up to (0 when absent). */
export function decodeHeadHint(bytes: Buffer): { seq: number; archived_until: number } {
  const hint = headHintSchema.parse(JSON.parse(bytes.toString('utf8')));
  return { seq: hint.seq ?? 0, archived_until: hint.archived_until ?? 0 };
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isBlockEntry = (value: unknown): value is BlockEntry => Array.isArray(value) && value.length === 5
  && typeof value[0] === 'string' && typeof value[1] === 'string' && typeof value[2] === 'number' && typeof value[3] === 'number' && typeof value[4] === 'number';
const isBlockList = (value: unknown): value is number[] => Array.isArray(value) && value.every((item) => typeof item === 'number');

// Checked by hand rather than by a zod schema: an index holds tens of thousands of small arrays, and zod took
// ~150 ms per index (50 times JSON.parse) on every archived look-up whose index was not cached.
function isSegmentIndex(value: unknown): value is SegmentIndex {
  if (!isRecord(value) || value.format !== ARCHIVE_FORMAT || !Array.isArray(value.blocks) || !isRecord(value.accounts)) return false;
  if (!value.blocks.every(isBlockEntry)) return false;
  return Object.values(value.accounts).every((byMc) => isRecord(byMc) && Object.values(byMc).every(isBlockList));
}

/** A segment's gzipped index file, decoded; throws when it is not one. */
export function decodeSegmentIndex(gzipped: Buffer): SegmentIndex {
  const value: unknown = JSON.parse(gunzipSync(gzipped).toString('utf8'));
  if (!isSegmentIndex(value)) throw new Error('not a decision archive segment index');
  return value;
}

export function seqOfManifestKey(key: string): number | null {
  const match = /^chain\/(\d{10})\.manifest\.json$/.exec(key);
  return match ? Number(match[1]) : null;
}

/** Parses `hours/…/s<seq>-<from>-<to>.index.json.gz` into its parts (null for anything else). */
export function parseSegmentKey(key: string): { seq: number; from: number; to: number; base: string } | null {
  const match = /^(hours\/\d{4}\/\d{2}\/\d{2}\/\d{2}\/s(\d{10})-(\d+)-(\d+))\.index\.json\.gz$/.exec(key);
  return match ? { base: match[1] as string, seq: Number(match[2]), from: Number(match[3]), to: Number(match[4]) } : null;
}
