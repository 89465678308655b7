// Redis keys of the batch feature, in the scheme of src/store/keys.ts. Every key of one job shares the hash tag
// {<job id>} so the job's Lua scripts (create, complete a chunk, terminate) touch one cluster slot. The
// per-API-key active slot lives in its key's slot ({<key id>}), so claiming and releasing it are separate
// idempotent steps (see jobs.ts).
import { tagged } from '../store/keys.js';

/** The consumer group every worker joins on each job's stream. */
export const WORKER_GROUP = 'workers';

export function batchKeys(prefix: string, jobId: string) {
  const job = (rest: string) => tagged(prefix, jobId, `batch:${rest}`);
  return {
    /** Hash: the job record, its pins and its outcome counters (`s:<outcome>`). */
    job: job('job'),
    /** Hash: chunk index → JSON array of input rows `[mc, dot, uei, ref]` (null for absent fields). */
    rows: job('rows'),
    /** Hash: chunk index → the chunk's finished CSV lines; a field's presence is the chunk's "done" mark. */
    out: job('out'),
    /** Stream: one entry per chunk, read by the WORKER_GROUP consumer group. */
    stream: job('stream'),
  } as const;
}

export type BatchJobKeys = ReturnType<typeof batchKeys>;

export function batchGlobalKeys(prefix: string) {
  // The three shared keys carry one hash tag so the submit step can list and announce a job in one MULTI.
  const shared = (rest: string) => tagged(prefix, 'jobs', `batch:${rest}`);
  return {
    /** String: the id of the one active (queued|running) job of an API key; TTL = deadline + margin. */
    activeSlot: (keyId: string) => tagged(prefix, keyId, 'batch:active'),
    /** Sorted set: ids of jobs not yet known terminal, score = deadline (ms). Workers discover work here. */
    activeJobs: shared('active'),
    /** Sorted set: every job id, score = creation time (ms); for `jobs list`, trimmed past retention. */
    index: shared('index'),
    /** Stream: one entry per accepted job, so idle workers wake at once (blocking XREAD) instead of polling. */
    announce: shared('announce'),
  } as const;
}

export type BatchGlobalKeys = ReturnType<typeof batchGlobalKeys>;
