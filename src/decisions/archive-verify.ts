// `decisions verify DIR`: checks a whole archive end to end under the trusted public key. Every manifest in
// chain/ in seq order (no seq missing), its Ed25519 signature, its link to the previous manifest (SHA-256 of
// its bytes), regular segments following each other without a gap, then every file it names: SHA-256 and size
// of the data and index, the stored snapshot manifests and rule sets, and the data decoded block by block
// against the index (record count, per-second counts, every record inside the segment's seconds). Any other
// file under hours/ fails it, except segment files that a crashed pass left (no manifest names them: readers
// never read them, and the next pass removes those of its own hour); they are listed as `leftovers`.
// Stops at the first difference and names its file.
import { verify, type KeyObject } from 'node:crypto';
import {
  CHAIN_PREFIX, decodeData, decodeSegmentIndex, manifestKey, parseSegmentKey, segmentManifestSchema, seqOfManifestKey, type SegmentManifest,
} from './archive-format.js';
import type { ArchiveStore } from './archive-store.js';
import { publicKeyBase64 } from './archive.js';
import { sha256 } from './archiver.js';
import { canonicalJson } from './reader.js';
import { idMillis } from './record-codec.js';

export interface ChainVerifyResult {
  ok: boolean;
  segments: number;
  records: number;
  /** Segments whose data was deleted after DECISION_ARCHIVE_YEARS (their manifests still verify). */
  pruned: number;
  /** Segment files no manifest names (left by a crashed pass; never read). */
  leftovers: string[];
  /** The first file that differs, and how. */
  problem: { file: string; what: string } | null;
}

class Difference extends Error {
  constructor(readonly file: string, what: string) {
    super(what);
  }
}

export async function verifyArchive(store: ArchiveStore, trusted: KeyObject, options: { nowMs: number; archiveYears: number }): Promise<ChainVerifyResult> {
  const result: ChainVerifyResult = { ok: true, segments: 0, records: 0, pruned: 0, leftovers: [], problem: null };
  const cutoff = options.nowMs / 1000 - options.archiveYears * 365.25 * 86_400;
  const trustedKey = publicKeyBase64(trusted);
  const objects = new Map<string, string>();
  const named = new Set<string>();
  try {
    const seqs = (await store.list(CHAIN_PREFIX)).map((key) => {
      const seq = seqOfManifestKey(key);
      if (seq === null) throw new Difference(key, 'is not a manifest name this archive uses');
      return seq;
    });
    let previous: { seq: number; sha256: string; manifest: SegmentManifest } | null = null;
    for (const [position, seq] of seqs.entries()) {
      const key = manifestKey(seq);
      if (seq !== position + 1) throw new Difference(manifestKey(position + 1), 'is missing from the chain');
      const bytes = await store.get(key);
      if (!bytes) throw new Difference(key, 'is missing');
      let manifest: SegmentManifest;
      try {
        manifest = segmentManifestSchema.parse(JSON.parse(bytes.toString('utf8')));
      } catch {
        throw new Difference(key, 'is not a well-formed manifest');
      }
      const { signature, ...unsigned } = manifest;
      if (signature.public_key !== trustedKey) throw new Difference(key, 'is signed by a different key than the trusted one');
      if (!verify(null, Buffer.from(canonicalJson(unsigned)), trusted, Buffer.from(signature.value, 'base64'))) throw new Difference(key, 'signature does not verify');
      if (manifest.seq !== seq) throw new Difference(key, `says seq ${manifest.seq}`);
      if (previous === null ? manifest.previous !== null : manifest.previous?.seq !== previous.seq || manifest.previous.sha256 !== previous.sha256) {
        throw new Difference(key, previous === null ? 'names a previous manifest but is the first' : `does not name manifest ${previous.seq} with its SHA-256 (the chain is broken)`);
      }
      if (manifest.kind === 'regular' && previous !== null && manifest.from_second !== previous.manifest.archived_until) {
        throw new Difference(key, `starts at second ${manifest.from_second}, but the archive before it ends at ${previous.manifest.archived_until} (a gap or an overlap)`);
      }
      for (const ref of [...Object.values(manifest.snapshots), ...Object.values(manifest.rulesets)]) {
        let digest = objects.get(ref.key);
        if (digest === undefined) {
          const object = await store.get(ref.key);
          if (!object) throw new Difference(ref.key, 'is missing');
          digest = sha256(object);
          objects.set(ref.key, digest);
        }
        if (digest !== ref.sha256) throw new Difference(ref.key, `SHA-256 is ${digest}, manifest ${seq} says ${ref.sha256}`);
      }
      if (manifest.data && manifest.index) {
        named.add(manifest.data.key);
        named.add(manifest.index.key);
        const data = await store.get(manifest.data.key);
        const indexBytes = await store.get(manifest.index.key);
        if (!data || !indexBytes) {
          if (manifest.to_second > cutoff) throw new Difference(!data ? manifest.data.key : manifest.index.key, 'is missing');
          result.pruned += 1;
        } else {
          for (const [ref, got] of [[manifest.data, data], [manifest.index, indexBytes]] as const) {
            if (got.length !== ref.bytes) throw new Difference(ref.key, `is ${got.length} bytes, manifest ${seq} says ${ref.bytes}`);
            const digest = sha256(got);
            if (digest !== ref.sha256) throw new Difference(ref.key, `SHA-256 is ${digest}, manifest ${seq} says ${ref.sha256}`);
          }
          let lines;
          try {
            lines = decodeData(data, decodeSegmentIndex(indexBytes));
          } catch (error) {
            throw new Difference(manifest.data.key, `does not decode: ${error instanceof Error ? error.message : String(error)}`);
          }
          if (lines.length !== manifest.records) throw new Difference(manifest.data.key, `holds ${lines.length} records, manifest ${seq} says ${manifest.records}`);
          const counts = new Map<number, number>();
          for (const line of lines) {
            const second = Math.floor(idMillis(line.decision_id) / 1000);
            if (second < manifest.from_second || second >= manifest.to_second) throw new Difference(manifest.data.key, `holds ${line.decision_id}, outside the segment's seconds`);
            counts.set(second, (counts.get(second) ?? 0) + 1);
          }
          if (canonicalJson([...counts].sort((a, b) => a[0] - b[0])) !== canonicalJson(manifest.seconds)) {
            throw new Difference(manifest.data.key, `per-second record counts differ from manifest ${seq}`);
          }
        }
      } else if (manifest.records !== 0) throw new Difference(key, 'counts records but names no data file');
      result.segments += 1;
      result.records += manifest.records;
      previous = { seq, sha256: sha256(bytes), manifest };
    }
    for (const key of await store.list('hours/')) {
      if (named.has(key)) continue;
      if (parseSegmentKey(key) !== null || parseSegmentKey(key.replace(/\.ndjson\.br$/, '.index.json.gz')) !== null) result.leftovers.push(key);
      else throw new Difference(key, 'is not named by any manifest');
    }
  } catch (error) {
    if (!(error instanceof Difference)) throw error;
    return { ...result, ok: false, problem: { file: error.file, what: error.message } };
  }
  return result;
}
