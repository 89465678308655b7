// Batch job records: submission with the one-active-job-per-key guarantee, reading, cancelling, and the
// repair steps (deadline, slot release) that every role shares, so the API, the workers and the CLI all end
// jobs the same way.
//
// Submission is three steps because the job's keys and the key's slot live in different cluster slots:
//   1. create the job (batch-create.lua: record, rows, stream entries; invisible to workers so far);
//   2. claim the key's slot (batch-claim-slot.lua); a holder that is missing or finished is replaced by
//      compare-and-set; a live holder means 409 and the new job's keys are deleted;
//   3. list the job as active and announce it, so workers pick it up.
// A crash after 1 leaves an orphan that expires on its own; after 2, a slot whose job is not listed: the next
// submission of that key re-lists it (repair) and answers 409 as it should. Releasing the slot after a job
// ends is likewise separate from the job's final script; a crash in between is repaired by any worker's
// reaper (settle) and by step 2, which treats a slot naming a finished job as free. The slot's own TTL
// (deadline + margin) bounds everything else.
import type { RedisClient } from '../redis/connection.js';
import { v7 as uuidv7 } from 'uuid';
import { luaScripts } from '../redis/scripts.js';
import { redisKeys } from '../store/keys.js';
import { batchGlobalKeys, batchKeys, WORKER_GROUP, type BatchGlobalKeys } from './keys.js';
import { toChunks } from './roster.js';
import { isActiveStatus, JOB_STATUSES, NOT_SCREENED_REASONS, OUTCOMES, type JobStatus, type NotScreenedReason, type StoredRow, type Summary } from './types.js';
import { decodeSnapshotMeta } from '../store/stored-json.js';
import { isOneOf } from '../core/one-of.js';

const SLOT_MARGIN_MS = 5 * 60_000;
const JOB_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
/** Looked up instead of a malformed id, so an unknown id costs the same Redis read as a real one. */
const ABSENT_JOB_ID = '00000000-0000-7000-8000-000000000000';

export interface JobPins {
  snapshot_version: string | null;
  ruleset_version: number | null;
  data_as_of: string | null;
}

export interface JobRecord extends JobPins {
  id: string;
  key_id: string;
  status: JobStatus;
  total: number;
  processed: number;
  chunk_size: number;
  chunks: number;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  deadline_ms: number;
  terminal_reason: NotScreenedReason | null;
  summary: Summary;
}

export type SubmitResult = { kind: 'accepted'; job: JobRecord } | { kind: 'conflict'; activeJobId: string };

export interface BatchJobsOptions {
  deadlineSeconds: number;
  retentionSeconds: number;
  now?: () => number;
}

const orNull = (value: string | undefined): string | null => (value === undefined || value === '' ? null : value);

export function parseJob(fields: Record<string, string>): JobRecord | null {
  if (!fields.id || !fields.key_id || !fields.status || !isOneOf(JOB_STATUSES, fields.status)) return null;
  const terminalReason = orNull(fields.terminal_reason);
  const summary = Object.fromEntries(OUTCOMES.map((outcome) => [outcome, Number(fields[`s:${outcome}`] ?? 0)])) as Summary;
  return {
    id: fields.id,
    key_id: fields.key_id,
    status: fields.status,
    total: Number(fields.total),
    processed: Number(fields.processed ?? 0),
    chunk_size: Number(fields.chunk_size),
    chunks: Number(fields.chunks),
    created_at: fields.created_at ?? '',
    started_at: orNull(fields.started_at),
    finished_at: orNull(fields.finished_at),
    deadline_ms: Number(fields.deadline_ms),
    snapshot_version: orNull(fields.snapshot_version),
    ruleset_version: fields.ruleset_version ? Number(fields.ruleset_version) : null,
    data_as_of: orNull(fields.data_as_of),
    terminal_reason: terminalReason !== null && isOneOf(NOT_SCREENED_REASONS, terminalReason) ? terminalReason : null,
    summary,
  };
}

export class BatchJobs {
  readonly global: BatchGlobalKeys;
  private readonly now: () => number;

  constructor(private readonly redis: RedisClient, readonly prefix: string, private readonly options: BatchJobsOptions) {
    this.global = batchGlobalKeys(prefix);
    this.now = options.now ?? Date.now;
  }

  get retentionMs(): number {
    return this.options.retentionSeconds * 1000;
  }

  async submit(keyId: string, rows: readonly StoredRow[], chunkSize: number, pins: JobPins, policy: { account: string; version: number } | null = null): Promise<SubmitResult> {
    const id = uuidv7();
    const nowMs = this.now();
    const deadlineMs = nowMs + this.options.deadlineSeconds * 1000;
    const chunks = toChunks(rows, chunkSize);
    const fields: Record<string, string> = {
      id, key_id: keyId, status: 'queued', total: String(rows.length), processed: '0', chunk_size: String(chunkSize),
      chunks: String(chunks.length), created_at: new Date(nowMs).toISOString(), deadline_ms: String(deadlineMs),
      snapshot_version: pins.snapshot_version ?? '', ruleset_version: pins.ruleset_version === null ? '' : String(pins.ruleset_version),
      data_as_of: pins.data_as_of ?? '', policy: policy === null ? '' : `${policy.account}|${policy.version}`,
    };
    const keys = batchKeys(this.prefix, id);
    const created = await luaScripts.batchCreate(
      this.redis, keys, deadlineMs - nowMs + this.retentionMs, WORKER_GROUP, fields, chunks.map((chunk) => JSON.stringify(chunk)),
    );
    if (!created) throw new Error(`job id collision: ${id}`);

    const holder = await this.claimSlot(keyId, id, deadlineMs - nowMs + SLOT_MARGIN_MS);
    if (holder !== id) {
      await this.redis.unlink(keys.job, keys.rows, keys.stream);
      return { kind: 'conflict', activeJobId: holder };
    }
    await this.redis.multi()
      .zadd(this.global.activeJobs, deadlineMs, id)
      .zadd(this.global.index, nowMs, id)
      .zremrangebyscore(this.global.index, '-inf', nowMs - this.retentionMs - this.options.deadlineSeconds * 1000)
      .xadd(this.global.announce, 'MAXLEN', '~', 1000, '*', 'job', id)
      .exec();
    const job = parseJob(fields);
    if (!job) throw new Error('unreadable job record just written');
    return { kind: 'accepted', job };
  }

  /** Claims the key's slot for `jobId`; returns the id of the job holding it afterwards. */
  private async claimSlot(keyId: string, jobId: string, ttlMs: number): Promise<string> {
    const slot = this.global.activeSlot(keyId);
    let replaceable = '';
    for (let attempt = 0; attempt < 4; attempt++) {
      const { claimed, holder } = await luaScripts.batchClaimSlot(this.redis, slot, jobId, ttlMs, replaceable);
      if (claimed) return jobId;
      const holding = await this.read(holder);
      if (holding && isActiveStatus(holding.status) && !(await this.settle(holding))) {
        // Still active: make sure workers know it (repairs a crash between claiming and listing).
        await this.redis.zadd(this.global.activeJobs, 'NX', holding.deadline_ms, holding.id);
        return holder;
      }
      replaceable = holder;
    }
    throw new Error(`could not claim the batch slot of key ${keyId}`);
  }

  async read(id: string): Promise<JobRecord | null> {
    const lookupId = JOB_ID.test(id) ? id : ABSENT_JOB_ID;
    return parseJob(await this.redis.hgetall(batchKeys(this.prefix, lookupId).job));
  }

  /**
   * The job if this key owns it, after applying its deadline; null for unknown and foreign jobs alike (the
   * caller answers both with one 404, after the same single read).
   */
  async readOwned(id: string, keyId: string): Promise<JobRecord | null> {
    const job = await this.read(id);
    if (!job || job.key_id !== keyId) return null;
    if (isActiveStatus(job.status) && (await this.settle(job))) return (await this.read(id)) ?? job;
    return job;
  }

  /** Cancels an active job; returns the job afterwards and whether this call ended it. */
  async cancel(job: JobRecord): Promise<{ ended: boolean; job: JobRecord }> {
    const ended = await this.terminate(job, 'cancelled', 'job_cancelled');
    return { ended, job: (await this.read(job.id)) ?? job };
  }

  /**
   * Brings a job's bookkeeping in line with its state: fails it when its deadline has passed, and for a
   * finished job releases its key's slot and unlists it. Idempotent. Returns true when it changed the job.
   */
  async settle(job: JobRecord): Promise<boolean> {
    if (isActiveStatus(job.status)) {
      if (job.deadline_ms > this.now()) return false;
      return this.terminate(job, 'failed', 'job_deadline_exceeded');
    }
    await this.release(job);
    return false;
  }

  private async terminate(job: JobRecord, status: 'cancelled' | 'failed', reason: NotScreenedReason): Promise<boolean> {
    const keys = batchKeys(this.prefix, job.id);
    const { ended } = await luaScripts.batchTerminate(this.redis, keys, status, reason, new Date(this.now()).toISOString(), this.retentionMs);
    if (ended) await this.release(job);
    return ended;
  }

  /** Frees the key's slot if it still names this job, and unlists the job from the active set. */
  async release(job: Pick<JobRecord, 'id' | 'key_id'>): Promise<void> {
    await luaScripts.batchReleaseSlot(this.redis, this.global.activeSlot(job.key_id), job.id);
    await this.redis.zrem(this.global.activeJobs, job.id);
  }

  /**
   * The snapshot and rule set in force now, read from Redis rather than from this replica's polled state, so a
   * job accepted right after an ingest or a publish is pinned to them (not to what this replica saw last).
   */
  async currentPins(): Promise<JobPins> {
    const keys = redisKeys(this.prefix);
    const [snapshotVersion, rulesetVersion] = await this.redis.mget(keys.snapshotCurrent, keys.rulesetCurrent);
    const meta = snapshotVersion ? await this.redis.get(keys.snapshotMeta(snapshotVersion)) : null;
    return {
      snapshot_version: meta ? snapshotVersion ?? null : null,
      ruleset_version: rulesetVersion ? Number(rulesetVersion) : null,
      data_as_of: meta && snapshotVersion ? decodeSnapshotMeta(meta, keys.snapshotMeta(snapshotVersion)).data_as_of : null,
    };
  }

  /** Ids of jobs listed as active (what workers poll); at most one per API key. */
  async activeJobIds(): Promise<string[]> {
    return this.redis.zrange(this.global.activeJobs, 0, -1);
  }

  /** The most recent jobs first (operators' `jobs list`), from the index; expired jobs are skipped. */
  async recent(limit: number): Promise<JobRecord[]> {
    const ids = await this.redis.zrevrange(this.global.index, 0, Math.max(0, limit - 1));
    const jobs = await Promise.all(ids.map((id) => this.read(id)));
    return jobs.filter((job): job is JobRecord => job !== null);
  }
}
