// The public shape of a job (GET /v1/batch/{id}, DELETE, `jobs show`): DESIGN §3's fields, then the pins.
import type { JobRecord } from './jobs.js';
import type { JobStatus, Summary } from './types.js';

export interface JobView {
  job_id: string;
  status: JobStatus;
  total: number;
  processed: number;
  summary: Summary;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  poll: string;
  report: string;
  /** Additive: the snapshot, rule set and data freshness every row of this job is screened against. */
  snapshot_version: string | null;
  ruleset_version: number | null;
  data_as_of: string | null;
  deadline_at: string;
}

export const pollUrl = (id: string) => `/v1/batch/${id}`;
export const reportUrl = (id: string) => `/v1/batch/${id}/report`;

export function jobView(job: JobRecord): JobView {
  return {
    job_id: job.id,
    status: job.status,
    total: job.total,
    processed: job.processed,
    summary: job.summary,
    created_at: job.created_at,
    started_at: job.started_at,
    finished_at: job.finished_at,
    poll: pollUrl(job.id),
    report: reportUrl(job.id),
    snapshot_version: job.snapshot_version,
    ruleset_version: job.ruleset_version,
    data_as_of: job.data_as_of,
    deadline_at: new Date(job.deadline_ms).toISOString(),
  };
}
