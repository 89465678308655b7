// Look-ups by id from the continuous archive at scale: writes --records synthetic decision records straight into
// the archive's on-disk form on the local store (the archiver's own encodeSegment, signed and chained manifests,
// one segment per --segment-seconds at --per-second records/s, lines built like bench/archive-lines.ts), then
// times ArchiveReader.read() for ids drawn uniformly from all of them, as GET /v1/decisions/{id} does beyond
// the Redis window:
//   cold: a new reader per look-up (no in-process cache: hour listing, manifest, index and one block each time);
//   warm: one long-lived reader (its LRU caches, as a running replica);
//   absent: ids inside archived hours that no record has (the 404 path).
// Every look-up must return the record asked for. The OS page cache is warm (the files were just written or
// read); say so next to the numbers. Prints one JSON object.
//
//   npm run bench:archive-lookup -- [--records 10000000] [--per-second 1000] [--segment-seconds 60]
//     [--lookups 2000] [--dir DIR (kept; an existing bench archive there is reused)]
import { randomUUID, generateKeyPairSync } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { isoTimestamp } from '../src/core/dates.js';
import {
  ARCHIVE_FORMAT, DATA_SUFFIX, encodeSegment, HEAD_KEY, HOUR_SECONDS, manifestKey, segmentBase, type ArchiveLine, type SegmentManifest,
} from '../src/decisions/archive-format.js';
import { ArchiveReader } from '../src/decisions/archive-reader.js';
import { LocalArchiveStore } from '../src/decisions/archive-store.js';
import { sha256, signManifest } from '../src/decisions/archiver.js';
import { decisionId } from '../src/decisions/decision-id.js';
import { benchLines, benchSnapshot } from './archive-lines.js';

const { values } = parseArgs({
  options: {
    records: { type: 'string', default: '10000000' },
    'per-second': { type: 'string', default: '1000' },
    'segment-seconds': { type: 'string', default: '60' },
    lookups: { type: 'string', default: '2000' },
    dir: { type: 'string' },
  },
});
const RECORDS = Number(values.records);
const PER_SECOND = Number(values['per-second']);
const SEGMENT_SECONDS = Number(values['segment-seconds']);
const LOOKUPS = Number(values.lookups);
const SAMPLE = 20_000;
const TEMPLATES = 20_000;

interface BenchMeta {
  records: number;
  per_second: number;
  segment_seconds: number;
  segments: number;
  data_bytes: number;
  index_bytes: number;
  manifest_bytes: number;
  write_seconds: number;
  sample: string[];
  hours: number[];
}

const dir = values.dir ?? await mkdtemp(join(tmpdir(), 'archive-lookup-'));
const store = new LocalArchiveStore(dir);
const metaFile = join(dir, 'bench-meta.json');

async function generate(): Promise<BenchMeta> {
  const { privateKey } = generateKeyPairSync('ed25519');
  // Starts ~14 months ago on an hour boundary: the claim about a dispatch long past the Redis window.
  const startSecond = Math.floor((Date.now() / 1000 - 420 * 86_400) / HOUR_SECONDS) * HOUR_SECONDS;
  const templates = [...benchLines(TEMPLATES, startSecond * 1000, 1)];
  const snapshot = benchSnapshot(startSecond * 1000);
  const snapshotBytes = Buffer.from(`${JSON.stringify(snapshot)}\n`);
  const rulesetBytes = Buffer.from(`${JSON.stringify({ version: 3, published_at: templates[0]?.ruleset?.published_at })}\n`);
  await store.put(`objects/snapshots/${snapshot.version}.json`, snapshotBytes);
  await store.put('objects/rulesets/3.json', rulesetBytes);
  const snapshots = { [snapshot.version]: { key: `objects/snapshots/${snapshot.version}.json`, sha256: sha256(snapshotBytes), bytes: snapshotBytes.length } };
  const rulesets = { 3: { key: 'objects/rulesets/3.json', sha256: sha256(rulesetBytes), bytes: rulesetBytes.length } };
  const meta: BenchMeta = {
    records: RECORDS, per_second: PER_SECOND, segment_seconds: SEGMENT_SECONDS, segments: 0, data_bytes: 0, index_bytes: 0,
    manifest_bytes: 0, write_seconds: 0, sample: [], hours: [],
  };
  const started = process.hrtime.bigint();
  let previous: SegmentManifest['previous'] = null;
  let written = 0;
  let from = startSecond;
  while (written < RECORDS) {
    const hourEnd = (Math.floor(from / HOUR_SECONDS) + 1) * HOUR_SECONDS;
    const to = Math.min(from + SEGMENT_SECONDS, hourEnd);
    const lines: ArchiveLine[] = [];
    const counts = new Map<number, number>();
    for (let second = from; second < to && written < RECORDS; second++) {
      for (let k = 0; k < PER_SECOND && written < RECORDS; k++, written++) {
        const ms = second * 1000 + Math.floor((k * 1000) / PER_SECOND);
        const template = templates[written % TEMPLATES] as ArchiveLine;
        const id = decisionId(ms);
        lines.push({ ...template, decision_id: id, request_id: randomUUID(), verdict: { ...template.verdict, decision_id: id, evaluated_at: isoTimestamp(ms) } });
        counts.set(second, (counts.get(second) ?? 0) + 1);
        // Reservoir sample: every record equally likely to be looked up.
        if (meta.sample.length < SAMPLE) meta.sample.push(id);
        else {
          const slot = Math.floor(Math.random() * (written + 1));
          if (slot < SAMPLE) meta.sample[slot] = id;
        }
      }
    }
    lines.sort((a, b) => (a.decision_id < b.decision_id ? -1 : 1));
    const seq = meta.segments + 1;
    const base = segmentBase(seq, from, to);
    const encoded = encodeSegment(lines);
    const indexBytes = gzipSync(JSON.stringify(encoded.index));
    await store.put(`${base}${DATA_SUFFIX}`, encoded.data);
    await store.put(`${base}.index.json.gz`, indexBytes);
    const manifest = signManifest({
      format: ARCHIVE_FORMAT, seq, kind: 'regular', from_second: from, to_second: to, archived_until: to, records: lines.length,
      seconds: [...counts].sort((a, b) => a[0] - b[0]),
      data: { key: `${base}${DATA_SUFFIX}`, sha256: sha256(encoded.data), bytes: encoded.data.length },
      index: { key: `${base}.index.json.gz`, sha256: sha256(indexBytes), bytes: indexBytes.length },
      snapshots, rulesets, previous, created_at: new Date().toISOString(),
    }, privateKey);
    const manifestBytes = Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`);
    await store.put(manifestKey(seq), manifestBytes, { ifAbsent: true });
    previous = { seq, sha256: sha256(manifestBytes) };
    meta.segments = seq;
    meta.data_bytes += encoded.data.length;
    meta.index_bytes += indexBytes.length;
    meta.manifest_bytes += manifestBytes.length;
    if (meta.hours[meta.hours.length - 1] !== from - (from % HOUR_SECONDS)) meta.hours.push(from - (from % HOUR_SECONDS));
    if (seq % 20 === 0) process.stderr.write(`${written} records, ${seq} segments\n`);
    from = to;
  }
  await store.put(HEAD_KEY, Buffer.from(`${JSON.stringify({ seq: meta.segments, archived_until: from })}\n`));
  meta.write_seconds = Number(process.hrtime.bigint() - started) / 1e9;
  await writeFile(metaFile, JSON.stringify(meta));
  return meta;
}

const existing = await readFile(metaFile, 'utf8').then((text) => JSON.parse(text) as BenchMeta).catch(() => null);
const meta = existing && existing.records === RECORDS && existing.per_second === PER_SECOND ? existing : await generate();

function percentiles(ms: number[]) {
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (p: number) => +(sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] as number).toFixed(2);
  return { n: sorted.length, p50: at(0.5), p90: at(0.9), p99: at(0.99), max: at(1), mean: +(sorted.reduce((a, b) => a + b, 0) / sorted.length).toFixed(2) };
}

async function time(ids: string[], reader: () => ArchiveReader, expectFound: boolean): Promise<number[]> {
  const out: number[] = [];
  for (const id of ids) {
    const t0 = process.hrtime.bigint();
    const found = await reader().read(id);
    out.push(Number(process.hrtime.bigint() - t0) / 1e6);
    if (expectFound ? found?.decision_id !== id : found !== null) throw new Error(`look-up of ${id} returned ${found?.decision_id ?? 'nothing'}`);
  }
  return out;
}

const pick = (count: number) => Array.from({ length: count }, () => meta.sample[Math.floor(Math.random() * meta.sample.length)] as string);
// An id in an archived second that no record has: same time prefix, other random bits.
const absent = pick(LOOKUPS).map((id) => `${id.slice(0, 24)}${'0'.repeat(12)}`);
const longLived = new ArchiveReader(store);
const cold = percentiles(await time(pick(LOOKUPS), () => new ArchiveReader(store), true));
const warm = percentiles(await time(pick(LOOKUPS), () => longLived, true));
const missing = percentiles(await time(absent, () => new ArchiveReader(store), false));
const records = meta.records;
process.stdout.write(`${JSON.stringify({
  records, per_second: meta.per_second, segment_seconds: meta.segment_seconds, segments: meta.segments, hours: meta.hours.length,
  archive_bytes_per_record: +((meta.data_bytes + meta.index_bytes + meta.manifest_bytes) / records).toFixed(1),
  data_bytes_per_record: +(meta.data_bytes / records).toFixed(1),
  index_bytes_per_segment: Math.round(meta.index_bytes / meta.segments),
  generate_records_per_s: Math.round(records / meta.write_seconds),
  lookup_ms: { cold_reader_per_lookup: cold, warm_long_lived_reader: warm, absent_id_cold: missing },
  dir: values.dir ? dir : '(removed)',
}, null, 2)}\n`);
if (!values.dir) await rm(dir, { recursive: true, force: true });
