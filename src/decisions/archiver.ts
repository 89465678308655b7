// The continuous archiver (worker role, and `decisions archive`): moves decision records from Redis into the
// archive store, one segment per pass per UTC hour touched, each with a signed manifest chained to the previous
// one; then evicts from Redis the seconds that are archived and older than the Redis window; then deletes
// archived data older than DECISION_ARCHIVE_YEARS unless a record in it is under legal hold.
//
// Crash safety: a segment is committed by its manifest (written last, create-if-absent, after the data, index
// and referenced objects are durable). The archiving cursor is the chain head read back from the store, so a
// crash before the manifest re-archives the same seconds under the same seq (nothing lost, the orphan files are
// overwritten), and a crash after it continues after it (nothing duplicated). Eviction deletes a second's bucket
// only when Redis holds exactly as many records as the archive does for it (decision-evict.lua); a record that
// arrived after its second was archived is archived again in a catch-up segment first (readers dedupe by id).
import { createHash, sign, type KeyObject } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { Logger } from '../log.js';
import type { RedisClient } from '../redis/connection.js';
import { luaScripts } from '../redis/scripts.js';
import type { RedisKeys } from '../store/keys.js';
import {
  ARCHIVE_FORMAT, CHAIN_PREFIX, DATA_SUFFIX, decodeHeadHint, decodeSegmentIndex, encodeSegment, HEAD_KEY, HOUR_SECONDS, hourPrefix, manifestKey, segmentBase, segmentManifestSchema,
  seqOfManifestKey, toLine, type ArchiveLine, type SegmentIndex, type SegmentManifest,
} from './archive-format.js';
import type { ArchiveStore } from './archive-store.js';
import { publicKeyBase64 } from './archive.js';
import { holdsInForce, type LegalHold } from './legal-hold.js';
import { canonicalJson, DecisionReader } from './reader.js';
import { BUCKET_MS } from './recorder.js';
import { decodeRecord, type StoredRecord } from './record-codec.js';

/** A regular segment stops growing at this many records (memory), and never spans an hour boundary. */
const MAX_SEGMENT_RECORDS = 200_000;
/** Buckets read or checked at once. */
const PARALLEL_SECONDS = 16;
const YEAR_SECONDS = 365.25 * 86_400;
/** Seconds this young are never evicted, even with `--evict-older-than 0s` (see evictBefore). */
export const EVICT_MARGIN_SECONDS = 2;

export function signManifest(unsigned: Omit<SegmentManifest, 'signature'>, key: KeyObject): SegmentManifest {
  return {
    ...unsigned,
    signature: { alg: 'Ed25519', public_key: publicKeyBase64(key), value: sign(null, Buffer.from(canonicalJson(unsigned)), key).toString('base64') },
  };
}

export const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

interface ChainHead {
  seq: number;
  sha256: string;
  /** Every second before this is archived (regular segments). */
  archivedUntil: number;
}

export interface ArchiverOptions {
  /** Redis window: archived seconds older than this are evicted. */
  retentionSeconds: number;
  archiveYears: number;
  legalHold: LegalHold;
  log?: Logger;
}

export interface PassResult {
  segments: number;
  records: number;
  archived_until: string | null;
}

export class DecisionArchiver {
  private head: ChainHead | null | undefined;
  private readonly writtenObjects = new Map<string, { key: string; sha256: string; bytes: number }>();
  /** The segment being written (writeSegment queues behind it). */
  private writing: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
    readonly store: ArchiveStore,
    private readonly signingKey: KeyObject,
    private readonly options: ArchiverOptions,
  ) {}

  /** The chain head from the store: the head.json hint, then any manifest written after it. */
  async loadHead(): Promise<ChainHead | null> {
    const hint = await this.store.get(HEAD_KEY);
    let seq = 0;
    if (hint) seq = decodeHeadHint(hint).seq;
    else {
      const last = (await this.store.list(CHAIN_PREFIX)).map(seqOfManifestKey).filter((item): item is number => item !== null).pop();
      seq = last ?? 0;
    }
    let bytes = seq > 0 ? await this.store.get(manifestKey(seq)) : null;
    if (seq > 0 && !bytes) throw new Error(`archive head names manifest ${seq}, which is missing from ${this.store.description}`);
    for (;;) {
      const next = await this.store.get(manifestKey(seq + 1));
      if (!next) break;
      seq += 1;
      bytes = next;
    }
    if (!bytes) {
      this.head = null;
      return null;
    }
    const manifest = segmentManifestSchema.parse(JSON.parse(bytes.toString('utf8')));
    this.head = { seq, sha256: sha256(bytes), archivedUntil: manifest.archived_until };
    return this.head;
  }

  /** After a failure: the next pass reads the head from the store again. */
  forgetHead(): void {
    this.head = undefined;
  }

  private async currentHead(): Promise<ChainHead | null> {
    return this.head === undefined ? this.loadHead() : this.head;
  }

  /** Archives every second before `untilSecond` not yet archived. */
  async archiveUntil(untilSecond: number): Promise<PassResult> {
    const head = await this.currentHead();
    let from = head ? head.archivedUntil : await this.genesisSecond(untilSecond);
    const result: PassResult = { segments: 0, records: 0, archived_until: null };
    while (from < untilSecond) {
      const hourEnd = (Math.floor(from / HOUR_SECONDS) + 1) * HOUR_SECONDS;
      let to = Math.min(untilSecond, hourEnd);
      const records: StoredRecord[] = [];
      const seconds: Array<[number, number]> = [];
      for (let second = from; second < to; second += PARALLEL_SECONDS) {
        const batch = Array.from({ length: Math.min(PARALLEL_SECONDS, to - second) }, (_, index) => second + index);
        const read = await Promise.all(batch.map((item) => this.readBucket(item)));
        for (const [index, entries] of read.entries()) {
          if (entries.length > 0) seconds.push([batch[index] as number, entries.length]);
          records.push(...entries);
        }
        if (records.length >= MAX_SEGMENT_RECORDS) {
          to = (batch[batch.length - 1] as number) + 1;
          break;
        }
      }
      await this.writeSegment('regular', from, to, to, records, seconds);
      result.segments += 1;
      result.records += records.length;
      from = to;
    }
    const final = await this.currentHead();
    result.archived_until = final ? new Date(final.archivedUntil * 1000).toISOString() : null;
    return result;
  }

  /** The first second to archive when the chain is empty: the oldest bucket in Redis (one SCAN, once ever). */
  private async genesisSecond(untilSecond: number): Promise<number> {
    let earliest = untilSecond;
    const head = this.keys.decisionBucketsHead;
    const nodes = 'nodes' in this.redis ? this.redis.nodes('master') : [this.redis];
    for (const node of nodes) {
      let cursor = '0';
      do {
        const [next, found] = await node.scan(cursor, 'MATCH', `${head}*`, 'COUNT', 1000);
        cursor = next;
        for (const key of found) {
          const second = parseInt(key.slice(head.length).replace(/}.*$/, ''), 36);
          if (Number.isFinite(second) && second < earliest) earliest = second;
        }
      } while (cursor !== '0');
    }
    return earliest;
  }

  private async readBucket(second: number): Promise<StoredRecord[]> {
    const flat = await this.redis.hgetall(this.keys.decisionBucket(second));
    return Object.entries(flat).map(([id, raw]) => decodeRecord(id, raw));
  }

  private async storeObject(kind: 'snapshots' | 'rulesets', name: string, value: unknown) {
    const key = `objects/${kind}/${name}.json`;
    const known = this.writtenObjects.get(key);
    if (known) return known;
    let bytes: Buffer = Buffer.from(`${JSON.stringify(value)}\n`);
    if (!(await this.store.put(key, bytes, { ifAbsent: true }))) bytes = (await this.store.get(key)) ?? bytes;
    const ref = { key, sha256: sha256(bytes), bytes: bytes.length };
    this.writtenObjects.set(key, ref);
    return ref;
  }

  /** Writes one segment (data, index, objects, then the manifest that commits it) and advances the head. */
  /**
   * Writes one segment, after any this archiver is already writing: eviction checks seconds in parallel, and two
   * catch-up segments must not both take the next seq.
   */
  private writeSegment(
    kind: SegmentManifest['kind'], from: number, to: number, archivedUntil: number, stored: StoredRecord[], seconds: Array<[number, number]>,
  ): Promise<void> {
    const written = this.writing.then(() => this.writeSegmentNow(kind, from, to, archivedUntil, stored, seconds));
    this.writing = written.catch(() => undefined);
    return written;
  }

  private async writeSegmentNow(
    kind: SegmentManifest['kind'], from: number, to: number, archivedUntil: number, stored: StoredRecord[], seconds: Array<[number, number]>,
  ): Promise<void> {
    stored.sort((a, b) => (a.decisionId < b.decisionId ? -1 : a.decisionId > b.decisionId ? 1 : 0));
    const reader = new DecisionReader(this.redis, this.keys, true);
    const lines: ArchiveLine[] = [];
    const snapshots: SegmentManifest['snapshots'] = {};
    const rulesets: SegmentManifest['rulesets'] = {};
    for (const record of stored) {
      const view = await reader.view(record);
      if (view.snapshot && !snapshots[view.snapshot.version]) snapshots[view.snapshot.version] = await this.storeObject('snapshots', view.snapshot.version, view.snapshot);
      if (view.ruleset && !rulesets[String(view.ruleset.version)]) {
        rulesets[String(view.ruleset.version)] = await this.storeObject('rulesets', String(view.ruleset.version), reader.loadedRuleset(view.ruleset.version));
      }
      lines.push(toLine(view));
    }
    const head = await this.currentHead();
    const seq = (head?.seq ?? 0) + 1;
    const base = segmentBase(seq, from, to);
    let data: SegmentManifest['data'] = null;
    let index: SegmentManifest['index'] = null;
    // Files a crashed pass left under this seq over other seconds: never read, removed so the hour stays tidy.
    for (const key of await this.store.list(hourPrefix(from))) {
      if (key.includes(`/s${String(seq).padStart(10, '0')}-`) && !key.startsWith(`${base}.`)) await this.store.delete(key);
    }
    if (lines.length > 0) {
      const encoded = encodeSegment(lines);
      const indexBytes = gzipSync(JSON.stringify(encoded.index));
      await this.store.put(`${base}${DATA_SUFFIX}`, encoded.data);
      await this.store.put(`${base}.index.json.gz`, indexBytes);
      data = { key: `${base}${DATA_SUFFIX}`, sha256: sha256(encoded.data), bytes: encoded.data.length };
      index = { key: `${base}.index.json.gz`, sha256: sha256(indexBytes), bytes: indexBytes.length };
    }
    const manifest = signManifest({
      format: ARCHIVE_FORMAT, seq, kind, from_second: from, to_second: to, archived_until: archivedUntil, records: lines.length,
      seconds, data, index, snapshots, rulesets, previous: head ? { seq: head.seq, sha256: head.sha256 } : null, created_at: new Date().toISOString(),
    }, this.signingKey);
    const bytes = Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`);
    if (!(await this.store.put(manifestKey(seq), bytes, { ifAbsent: true }))) {
      this.head = undefined;
      throw new Error(`archive manifest ${seq} was written by another archiver; this pass stops`);
    }
    this.head = { seq, sha256: sha256(bytes), archivedUntil };
    await this.store.put(HEAD_KEY, Buffer.from(`${JSON.stringify({ seq, archived_until: archivedUntil })}\n`));
  }

  /**
   * Evicts from Redis every archived second before `cutoffSecond`, walking the chain from the last segment
   * evicted; a bucket whose record count differs from the archive's is archived again (catch-up) first.
   */
  async evictBefore(cutoffSecond: number): Promise<{ buckets: number; catch_ups: number }> {
    // A record write still in flight (at most REDIS_COMMAND_TIMEOUT_MS) may yet land in the last seconds; a
    // bucket evicted before it landed would be recreated and never archived. Those seconds wait for the next pass.
    cutoffSecond = Math.min(cutoffSecond, secondOf(Date.now()) - EVICT_MARGIN_SECONDS);
    const head = await this.currentHead();
    const result = { buckets: 0, catch_ups: 0 };
    if (!head) return result;
    let seq = Number((await this.redis.get(this.keys.decisionEvictedSeq)) ?? 0);
    const lastRegular = head.seq;
    while (seq < lastRegular) {
      const bytes = await this.store.get(manifestKey(seq + 1));
      if (!bytes) throw new Error(`archive manifest ${seq + 1} is missing from ${this.store.description}`);
      const manifest = segmentManifestSchema.parse(JSON.parse(bytes.toString('utf8')));
      // A segment reaching past the cutoff is evicted up to it, and walked again next time (evicting is idempotent).
      const end = manifest.kind === 'regular' ? Math.min(manifest.to_second, cutoffSecond) : manifest.from_second;
      if (manifest.kind === 'regular') {
        const counts = new Map(manifest.seconds);
        for (let second = manifest.from_second; second < end; second += PARALLEL_SECONDS) {
          const batch = Array.from({ length: Math.min(PARALLEL_SECONDS, end - second) }, (_, index) => second + index);
          await Promise.all(batch.map(async (item) => {
            const evicted = await this.evictSecond(item, counts.get(item) ?? 0);
            result.buckets += evicted.bucket ? 1 : 0;
            result.catch_ups += evicted.catchUps;
          }));
        }
        if (end < manifest.to_second) break;
      }
      seq += 1;
      await this.redis.set(this.keys.decisionEvictedSeq, String(seq));
    }
    return result;
  }

  private async evictSecond(second: number, archived: number): Promise<{ bucket: boolean; catchUps: number }> {
    const bucket = this.keys.decisionBucket(second);
    let expected = archived;
    let catchUps = 0;
    const existed = (await this.redis.exists(bucket)) === 1;
    while (!(await luaScripts.decisionEvict(this.redis, bucket, expected))) {
      // Records reached this second after it was archived: archive the whole bucket again (readers dedupe).
      const records = await this.readBucket(second);
      await this.writeSegment('catch_up', second, second + 1, (await this.currentHead())?.archivedUntil ?? second + 1, records, [[second, records.length]]);
      this.options.log?.warn({ second, records: records.length, archived }, 'decision records reached Redis after their second was archived: catch-up segment written');
      expected = records.length;
      catchUps += 1;
    }
    return { bucket: existed, catchUps };
  }

  /**
   * Deletes the data and index of segments older than DECISION_ARCHIVE_YEARS (the manifest stays, so the chain
   * still verifies) unless one of their records is under legal hold (the config's and the store's holds). A
   * segment kept for a hold is remembered and deleted at a later prune once no hold covers it.
   */
  async prune(nowMs: number): Promise<{ deleted: number; held: number }> {
    const head = await this.currentHead();
    const result = { deleted: 0, held: 0 };
    if (!head) return result;
    const holds = await holdsInForce(this.store, this.options.legalHold);
    const cutoff = nowMs / 1000 - this.options.archiveYears * YEAR_SECONDS;
    const count = (outcome: 'deleted' | 'held' | 'kept') => {
      if (outcome !== 'kept') result[outcome] += 1;
    };
    for (const held of await this.redis.smembers(this.keys.decisionHeldSeqs)) {
      const outcome = await this.pruneSegment(Number(held), holds);
      if (outcome !== 'held') await this.redis.srem(this.keys.decisionHeldSeqs, held);
      count(outcome);
    }
    let seq = Number((await this.redis.get(this.keys.decisionPrunedSeq)) ?? 0);
    while (seq < head.seq) {
      const manifest = await this.readManifest(seq + 1);
      if (!manifest || (manifest.kind === 'regular' && manifest.to_second > cutoff)) break;
      if (manifest.to_second <= cutoff) {
        const outcome = await this.pruneSegment(seq + 1, holds);
        if (outcome === 'held') await this.redis.sadd(this.keys.decisionHeldSeqs, String(seq + 1));
        count(outcome);
      }
      seq += 1;
      await this.redis.set(this.keys.decisionPrunedSeq, String(seq));
    }
    return result;
  }

  private async readManifest(seq: number): Promise<SegmentManifest | null> {
    const bytes = await this.store.get(manifestKey(seq));
    return bytes ? segmentManifestSchema.parse(JSON.parse(bytes.toString('utf8'))) : null;
  }

  /** Deletes one old segment's data and index unless a hold covers one of its records. */
  private async pruneSegment(seq: number, holds: LegalHold): Promise<'deleted' | 'held' | 'kept'> {
    const manifest = await this.readManifest(seq);
    if (!manifest?.index || !manifest.data) return 'kept';
    const indexBytes = await this.store.get(manifest.index.key);
    if (!indexBytes) return 'kept';
    if (coversHold(decodeSegmentIndex(indexBytes), holds)) return 'held';
    await this.store.delete(manifest.data.key);
    await this.store.delete(manifest.index.key);
    return 'deleted';
  }
}

function coversHold(index: SegmentIndex, holds: LegalHold): boolean {
  for (const [account, byMc] of Object.entries(index.accounts)) {
    if (holds.accounts.has(account)) return true;
    if (holds.mcs.size > 0 && Object.keys(byMc).some((mc) => holds.mcs.has(mc))) return true;
  }
  return false;
}

export const secondOf = (ms: number) => Math.floor(ms / BUCKET_MS);
