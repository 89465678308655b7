// Reads the continuous archive: one record by id (the UUIDv7 time names the hour, the hour's segment index
// names the block, one block is read and decompressed) and a search by account, MC number and time. Only
// segment files that a committed manifest names are read (a crash can leave files of a segment that was never
// committed, or that was committed again over other seconds). Records written twice (catch-up segments, a pass
// repeated after a crash) are returned once.
import { LRUCache } from 'lru-cache';
import type { SnapshotMeta } from '../core/carrier.js';
import {
  decodeBlock, decodeHeadHint, decodeSegmentIndex, findBlock, findInBlock, fromLine, HEAD_KEY, HOUR_SECONDS, hourPrefix, manifestKey, parseSegmentKey, segmentManifestSchema,
  type ArchiveLine, type SegmentIndex,
} from './archive-format.js';
import { decodeSnapshotMeta } from '../store/stored-json.js';
import type { ArchiveStore } from './archive-store.js';
import type { DecisionView } from './reader.js';
import { DECISION_ID, idMillis } from './record-codec.js';

interface Segment {
  seq: number;
  from: number;
  to: number;
  base: string;
}

export interface FindQuery {
  account: string;
  mc: string | null;
  /** [fromMs, toMs) of decision time. */
  fromMs: number;
  toMs: number;
  /** Only records with a larger id (pagination). */
  afterId: string | null;
  limit: number;
}

export class ArchiveReader {
  private readonly indexes = new LRUCache<string, SegmentIndex>({ max: 512 });
  /**
   * seq → the index key its committed manifest names (only committed seqs are cached: they never change). Sized
   * for a few days of one-minute segments: lru-cache allocates its slots up front, and 100,000 of them cost every
   * new reader (a one-shot `decisions show`) ~15 ms before its first look-up.
   */
  private readonly committed = new LRUCache<number, string>({ max: 8_192 });
  private readonly snapshots = new LRUCache<string, SnapshotMeta>({ max: 64 });
  private readonly hours = new LRUCache<string, Segment[]>({ max: 256, ttl: 60_000 });

  constructor(readonly store: ArchiveStore) {}

  /** Every second before this is archived, per the head hint (may lag the chain by one segment; readers overlap). */
  async archivedUntil(): Promise<number> {
    const hint = await this.store.get(HEAD_KEY);
    return hint ? decodeHeadHint(hint).archived_until : 0;
  }

  /** Segment files of one hour, by seq (committed or not: see isCommitted). A past hour's listing is cached for a minute. */
  private async segments(hourStart: number): Promise<Segment[]> {
    const prefix = hourPrefix(hourStart);
    const cached = this.hours.get(prefix);
    if (cached) return cached;
    const found: Segment[] = [];
    for (const key of await this.store.list(prefix)) {
      const parsed = parseSegmentKey(key);
      if (parsed) found.push(parsed);
    }
    found.sort((a, b) => a.seq - b.seq);
    if ((hourStart + HOUR_SECONDS) * 1000 < Date.now() - 3_600_000) this.hours.set(prefix, found);
    return found;
  }

  /** True when seq's manifest exists and names this segment's files (not those of a crashed pass under the same seq). */
  private async isCommitted(segment: Segment): Promise<boolean> {
    const indexKey = `${segment.base}.index.json.gz`;
    let named = this.committed.get(segment.seq);
    if (named === undefined) {
      const bytes = await this.store.get(manifestKey(segment.seq));
      if (!bytes) return false;
      named = segmentManifestSchema.parse(JSON.parse(bytes.toString('utf8'))).index?.key ?? '';
      this.committed.set(segment.seq, named);
    }
    return named === indexKey;
  }

  private async index(segment: Segment): Promise<SegmentIndex | null> {
    const key = `${segment.base}.index.json.gz`;
    const cached = this.indexes.get(key);
    if (cached) return cached;
    if (!(await this.isCommitted(segment))) return null;
    const bytes = await this.store.get(key);
    if (!bytes) return null;
    const index = decodeSegmentIndex(bytes);
    this.indexes.set(key, index);
    return index;
  }

  private async block(segment: Segment, index: SegmentIndex, block: number): Promise<ArchiveLine[]> {
    const entry = index.blocks[block];
    if (!entry) return [];
    const bytes = await this.store.getRange(`${segment.base}.ndjson.br`, entry[2], entry[3]);
    if (!bytes) {
      // Deleted past DECISION_ARCHIVE_YEARS after this index was cached: its records are gone, as if never found.
      this.indexes.delete(`${segment.base}.index.json.gz`);
      return [];
    }
    return decodeBlock(bytes);
  }

  /** The line of one id in a block (only that line parsed), or null. */
  private async lineOf(segment: Segment, index: SegmentIndex, block: number, id: string): Promise<ArchiveLine | null> {
    const entry = index.blocks[block];
    if (!entry) return null;
    const bytes = await this.store.getRange(`${segment.base}.ndjson.br`, entry[2], entry[3]);
    if (!bytes) {
      this.indexes.delete(`${segment.base}.index.json.gz`);
      return null;
    }
    return findInBlock(bytes, id);
  }

  private async snapshot(version: string | null): Promise<SnapshotMeta | null> {
    if (version === null) return null;
    const cached = this.snapshots.get(version);
    if (cached) return cached;
    const bytes = await this.store.get(`objects/snapshots/${version}.json`);
    if (!bytes) throw new Error(`archived snapshot manifest ${version} is missing`);
    const meta = decodeSnapshotMeta(bytes.toString('utf8'), `objects/snapshots/${version}.json`);
    this.snapshots.set(version, meta);
    return meta;
  }

  private view(line: ArchiveLine): Promise<DecisionView> {
    return this.snapshot(line.verdict.evidence.snapshot_version).then((snapshot) => fromLine(line, snapshot));
  }

  /** The archived record of an id, any account's (the caller compares accounts), or null. */
  async read(id: string): Promise<DecisionView | null> {
    if (!DECISION_ID.test(id)) return null;
    const second = Math.floor(idMillis(id) / 1000);
    const hourStart = second - (second % HOUR_SECONDS);
    for (const segment of await this.segments(hourStart)) {
      if (second < segment.from || second >= segment.to) continue;
      const index = await this.index(segment);
      if (!index) continue;
      const block = findBlock(index, id);
      if (block < 0) continue;
      const line = await this.lineOf(segment, index, block, id);
      if (line) return this.view(line);
    }
    return null;
  }

  /**
   * An account's records in [fromMs, toMs) (and of one MC number when given), in id order, at most `limit`,
   * reading at most `maxHours` hours; `scannedUntilMs` says where the next page starts when fewer came back.
   */
  async find(query: FindQuery, untilMs: number, maxHours = 24 * 31): Promise<{ items: DecisionView[]; scannedUntilMs: number }> {
    const items: DecisionView[] = [];
    const startMs = Math.max(query.fromMs, query.afterId ? idMillis(query.afterId) : query.fromMs);
    const endMs = Math.min(query.toMs, untilMs);
    let hour = Math.floor(startMs / 1000 / HOUR_SECONDS) * HOUR_SECONDS;
    let hours = 0;
    while (hour * 1000 < endMs && items.length < query.limit && hours < maxHours) {
      const seen = new Set<string>();
      const lines: ArchiveLine[] = [];
      for (const segment of await this.segments(hour)) {
        if (segment.to * 1000 <= startMs || segment.from * 1000 >= endMs) continue;
        const index = await this.index(segment);
        const byMc = index?.accounts[query.account];
        if (!index || !byMc) continue;
        const blocks = new Set(query.mc === null ? Object.values(byMc).flat() : byMc[query.mc] ?? []);
        for (const block of [...blocks].sort((a, b) => a - b)) {
          for (const line of await this.block(segment, index, block)) {
            const ms = idMillis(line.decision_id);
            if (line.account !== query.account || (query.mc !== null && line.verdict.mc_number !== query.mc)) continue;
            if (ms < startMs || ms >= endMs || (query.afterId !== null && line.decision_id <= query.afterId)) continue;
            if (seen.has(line.decision_id)) continue;
            seen.add(line.decision_id);
            lines.push(line);
          }
        }
      }
      lines.sort((a, b) => (a.decision_id < b.decision_id ? -1 : 1));
      for (const line of lines) items.push(await this.view(line));
      hour += HOUR_SECONDS;
      hours += 1;
    }
    return { items, scannedUntilMs: Math.min(endMs, hour * 1000) };
  }
}
