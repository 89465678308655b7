// The vocabulary of batch jobs: states, row outcomes and the batch-only row reasons.

export const JOB_STATUSES = ['queued', 'running', 'completed', 'cancelled', 'failed'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export const ACTIVE_STATUSES: readonly JobStatus[] = ['queued', 'running'];

export function isActiveStatus(status: string | null | undefined): status is 'queued' | 'running' {
  return status === 'queued' || status === 'running';
}

/** Outcome categories of the summary, in the order the counters are passed to Lua. */
export const OUTCOMES = ['eligible', 'review', 'hard_stop', 'not_found', 'not_screened', 'error'] as const;
export type Outcome = (typeof OUTCOMES)[number];

export type Summary = Record<Outcome, number>;

/**
 * Reasons a row was not screened. They are batch-row reasons, not verdict reasons, so they are not in the
 * verdict reason table (src/core/reasons.ts); docs/batch.md lists them.
 */
export const NOT_SCREENED_REASONS = ['missing_mc_number', 'invalid_mc_number', 'job_cancelled', 'job_deadline_exceeded', 'job_failed'] as const;
export type NotScreenedReason = (typeof NOT_SCREENED_REASONS)[number];

/** One roster row as submitted: only the four known fields, each absent (null) or a string. */
export interface RosterRow {
  mc: string | null;
  dot: string | null;
  uei: string | null;
  ref: string | null;
}

/** Stored compactly per chunk as `[mc, dot, uei, ref]`. */
export type StoredRow = [string | null, string | null, string | null, string | null];

export const MAX_ROWS = 5000;
export const MAX_CELL_CHARS = 256;
export const BATCH_BODY_LIMIT = 2 * 1024 * 1024;
