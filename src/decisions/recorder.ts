// Writes decision records, coalesced: every record enqueued during one event-loop turn goes out in one
// pipeline (one round trip), and every caller of that turn is told whether the whole write was acknowledged:
// a waiter of the turn's list called back in a loop (the eligibility check: no promise per check), or the turn's
// one promise (record()). Callers answer only after it says true, so a crash can lose an answer that was never
// sent, never the record of one that was.
//
// Per flush: one HSET per touched one-second bucket (no TTL: a bucket leaves Redis only when the archiver has
// archived it, src/decisions/archiver.ts); SET NX EX for shared evidence this replica has
// not written yet; SET NX for the manifest of a snapshot it has not copied yet (kept forever). Every command
// names one key (sendKeyed: direct calls, sent with the turn's other request-path commands in one socket write
// by EndOfTurn; per-node auto-pipelining on a cluster; no CROSSSLOT).
import type { SnapshotMeta } from '../core/carrier.js';
import type { RedisClient } from '../redis/connection.js';
import { EndOfTurn } from '../redis/end-of-turn.js';
import { sendKeyed, type KeyedCommand } from '../redis/keyed-batch.js';
import { tellEach } from '../redis/turn-waiters.js';
import type { RedisKeys } from '../store/keys.js';
import type { Verdict } from '../core/verdict.js';
import { encodeRecord, encodeSharedEvidence, evidenceVariant, hasSharedEvidence, idMillis, type RecordContext } from './record-codec.js';

export const BUCKET_MS = 1000;
/** Shared-evidence keys this replica knows are written; cleared when it grows past this (they are re-sent NX). */
const KNOWN_EVIDENCE_MAX = 200_000;

export interface RecorderOptions {
  /** The Redis window: how long records stay in Redis once archived (shared evidence must outlive it). */
  retentionSeconds: number;
  /**
   * Shared evidence must outlive every record that points at it: a snapshot can be served for at most
   * MAX_DATA_AGE_SECONDS after its as-of (then verdicts are data_stale), so retention + that + a day is enough.
   */
  maxDataAgeSeconds: number;
}


/** Told once whether the write holding a record was acknowledged; must not throw (it answers its own failures). */
export interface RecordWaiter {
  recorded(ok: boolean): void;
}

interface Turn {
  buckets: Map<string, string[]>;
  evidence: Map<string, string>;
  manifests: Map<string, string>;
  waiters: RecordWaiter[];
  /** The promise record() callers share, made for the first of them. */
  done: Promise<boolean> | null;
}

export function bucketKey(keys: RedisKeys, decisionId: string): string {
  return keys.decisionBucket(Math.floor(idMillis(decisionId) / BUCKET_MS));
}

export class DecisionRecorder {
  private turn: Turn | null = null;
  private readonly knownEvidence = new Set<string>();
  private readonly knownManifests = new Set<string>();
  // The bucket key of the last second seen: one string build per second, not per record.
  private lastSecond = -1;
  private lastBucket = '';
  private readonly snapshots = new Map<string, SnapshotMeta>();
  private readonly evidenceKeys = new WeakMap<Verdict['evidence'], { mc: string; variant: string; key: string }>();
  private readonly evidenceTtlSeconds: number;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
    options: RecorderOptions,
    /** Where the turn's record write is sent, with the turn's other request-path commands (one socket write). */
    private readonly endOfTurn: EndOfTurn = new EndOfTurn(redis),
  ) {
    this.evidenceTtlSeconds = options.retentionSeconds + options.maxDataAgeSeconds + 86_400;
  }

  /** Tells the recorder which meta a snapshot version has, so its manifest can be copied with the first record. */
  noteSnapshot(snapshot: SnapshotMeta | null): void {
    if (snapshot && !this.snapshots.has(snapshot.version)) {
      // Kept (a few versions) even after the copy is written, so a Redis that lost it gets it again.
      if (this.snapshots.size >= 16) this.snapshots.delete(this.snapshots.keys().next().value as string);
      this.snapshots.set(snapshot.version, snapshot);
    }
  }

  /** Enqueues one record; `waiter` is told true once this turn's write is acknowledged, false if it failed. */
  recordFor(verdict: Verdict, context: RecordContext, waiter: RecordWaiter): void {
    this.add(verdict, context).waiters.push(waiter);
  }

  /** recordFor as a promise (shared by every record() of the turn): true once acknowledged, false if it failed. */
  record(verdict: Verdict, context: RecordContext): Promise<boolean> {
    const turn = this.add(verdict, context);
    turn.done ??= new Promise<boolean>((resolve) => {
      turn.waiters.push({ recorded: resolve });
    });
    return turn.done;
  }

  private add(verdict: Verdict, context: RecordContext): Turn {
    const turn = this.turn ?? this.startTurn();
    const second = Math.floor(idMillis(verdict.decision_id) / BUCKET_MS);
    if (second !== this.lastSecond) {
      this.lastSecond = second;
      this.lastBucket = this.keys.decisionBucket(second);
    }
    const key = this.lastBucket;
    let fields = turn.buckets.get(key);
    if (!fields) {
      fields = [];
      turn.buckets.set(key, fields);
    }
    fields.push(verdict.decision_id, encodeRecord(verdict, context));
    const version = verdict.evidence.snapshot_version;
    if (version !== null) {
      if (hasSharedEvidence(verdict)) {
        const evidenceKey = this.evidenceKey(verdict, version);
        if (!this.knownEvidence.has(evidenceKey) && !turn.evidence.has(evidenceKey)) turn.evidence.set(evidenceKey, encodeSharedEvidence(verdict));
      }
      if (!this.knownManifests.has(version) && !turn.manifests.has(version)) {
        const meta = this.snapshots.get(version);
        // Without the meta at hand the record cannot vouch for its sources: fail the write (fail closed).
        turn.manifests.set(version, meta ? JSON.stringify(meta) : '');
      }
    }
    return turn;
  }

  /**
   * Removes the record of a verdict that was recorded but not given (its request was refused by the budget draw
   * it was recorded alongside). Best effort and not awaited: a record left behind is the same state as a crash
   * between the record write and the answer, which this design already accepts (records ⊇ answers).
   */
  withdraw(verdict: Verdict): void {
    this.redis.hdel(bucketKey(this.keys, verdict.decision_id), verdict.decision_id).catch(() => undefined);
  }

  /**
   * The shared-evidence key of a verdict, remembered per evidence object (a cache-hot verdict reuses its
   * template's): one string build and hash per template instead of per record.
   */
  private evidenceKey(verdict: Verdict, version: string): string {
    const variant = evidenceVariant(verdict);
    const known = this.evidenceKeys.get(verdict.evidence);
    if (known !== undefined && known.mc === verdict.mc_number && known.variant === variant) return known.key;
    const key = this.keys.decisionEvidence(version, verdict.mc_number, variant);
    if (verdict.cache_hit) this.evidenceKeys.set(verdict.evidence, { mc: verdict.mc_number, variant, key });
    return key;
  }

  private startTurn(): Turn {
    const turn: Turn = { buckets: new Map(), evidence: new Map(), manifests: new Map(), waiters: [], done: null };
    this.turn = turn;
    this.endOfTurn.atEnd(() => void this.flush(turn));
    return turn;
  }

  private async flush(turn: Turn): Promise<void> {
    this.turn = null;
    const commands: KeyedCommand[] = [];
    for (const [key, fields] of turn.buckets) commands.push(['hset', key, ...fields]);
    for (const [key, json] of turn.evidence) commands.push(['set', key, json, 'EX', this.evidenceTtlSeconds, 'NX']);
    for (const [version, json] of turn.manifests) {
      if (json === '') {
        tellEach(turn.waiters, (waiter) => waiter.recorded(false));
        return;
      }
      commands.push(['set', this.keys.snapshotManifest(version), json, 'NX']);
    }
    let ok = false;
    try {
      ok = await this.send(commands);
    } catch {
      ok = false;
    }
    if (ok) {
      if (this.knownEvidence.size + turn.evidence.size > KNOWN_EVIDENCE_MAX) this.knownEvidence.clear();
      for (const key of turn.evidence.keys()) this.knownEvidence.add(key);
      for (const version of turn.manifests.keys()) this.knownManifests.add(version);
    } else {
      // Redis may have restarted empty: send shared evidence and manifests again rather than trust memory.
      this.knownEvidence.clear();
      this.knownManifests.clear();
    }
    tellEach(turn.waiters, (waiter) => waiter.recorded(ok));
  }

  /** True when every command succeeded (sendKeyed rejects on the first error). */
  private async send(commands: KeyedCommand[]): Promise<boolean> {
    // Sent from inside EndOfTurn (startTurn): direct calls, one socket write with the turn's other commands.
    await sendKeyed(this.redis, commands, { corked: true });
    return true;
  }
}
