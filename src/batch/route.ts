// Batch endpoints: POST /v1/batch, GET and DELETE /v1/batch/{id}, GET /v1/batch/{id}/report.
// Order of checks: 401 → 403 → 429 → 400/422 → 409 → work. Every call draws one from the key's calls budget
// (src/ratelimit/call-budget.ts); a job's rows draw from the checks budget when screened.
// Batch is asynchronous, so a Redis outage is answered honestly with 503 + Retry-After (the fail-closed
// 200 rule is for single checks). Unknown and foreign jobs get the same 404 after the same single read.
import type { PolicyPins } from './pinned-screening.js';
import type { RedisClient } from '../redis/connection.js';
import { z } from 'zod';
import type { StoredApiKey } from '../auth/api-key.js';
import type { CallGate } from '../auth/call-gate.js';
import { AppError } from '../errors.js';
import type { Logger } from '../log.js';
import type { BatchJobs, JobRecord } from './jobs.js';
import { reportChunks } from './report.js';
import { batchBudgetLimit, chunkSizeFor, parseRoster } from './roster.js';
import { BATCH_BODY_LIMIT, isActiveStatus } from './types.js';
import { jobView, pollUrl, reportUrl } from './view.js';
import { parseJsonBody } from '../http/json-body.js';
import type { HttpRequest, HttpResponse, Route } from '../http/types.js';

/** Seconds a client should wait before polling a job that is still queued or running. */
const POLL_AFTER_SECONDS = '1';
const UNAVAILABLE_RETRY_SECONDS = '5';

export interface BatchDeps {
  gate: CallGate;
  jobs: BatchJobs;
  redis: RedisClient;
  headroom: number;
  log: Logger;
  /** Account policies, pinned per job like the rule set (absent: none). */
  policies?: PolicyPins;
}

const notFound = () => new AppError('not_found', 'No batch job with this id exists for this API key.');

/** Runs a step that talks to Redis; a failure there is a 503, not a 500. */
async function guarded<T>(deps: BatchDeps, request: HttpRequest, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (error instanceof AppError) throw error;
    deps.log.warn({ err: error, request_id: request.requestId }, 'batch storage unavailable');
    throw new AppError('service_unavailable', 'Batch jobs are temporarily unavailable; retry shortly.', {
      cause: error, headers: { 'retry-after': UNAVAILABLE_RETRY_SECONDS },
    });
  }
}

async function ownedJob(deps: BatchDeps, request: HttpRequest, key: StoredApiKey): Promise<JobRecord> {
  const job = await guarded(deps, request, () => deps.jobs.readOwned(request.params[0] ?? '', key.id));
  if (!job) throw notFound();
  return job;
}

function statusResponse(job: JobRecord, status: number, keyId: string): HttpResponse {
  return {
    status,
    headers: { 'cache-control': 'no-store', ...(isActiveStatus(job.status) ? { 'retry-after': POLL_AFTER_SECONDS } : {}) },
    json: jobView(job),
    log: { key_id: keyId, job_id: job.id, job_status: job.status },
  };
}

export function batchRoutes(deps: BatchDeps): Route[] {
  const submit: Route = {
    method: 'POST',
    pattern: '/v1/batch',
    maxBodyBytes: BATCH_BODY_LIMIT,
    async handler(request) {
      const { key, rateHeaders } = await deps.gate.admit(request, ['batch']);
      const rows = parseRoster(parseJsonBody(request.body, z.unknown()));
      const chunkSize = chunkSizeFor(batchBudgetLimit(key.rate_per_minute, deps.headroom));
      const result = await guarded(deps, request, async () => {
        // Pinned now, so every row of the job is judged on the data and rules in force when it was accepted.
        const pins = await deps.jobs.currentPins();
        const policyVersion = deps.policies?.currentVersion(key.account) ?? null;
        return deps.jobs.submit(key.id, rows, chunkSize, pins, policyVersion === null ? null : { account: key.account, version: policyVersion });
      });
      if (result.kind === 'conflict') {
        throw new AppError('active_job_exists', 'This API key already has a queued or running batch job.', {
          extensions: { active_job_id: result.activeJobId },
        });
      }
      const { job } = result;
      return {
        status: 202,
        headers: { location: pollUrl(job.id), 'cache-control': 'no-store', ...rateHeaders },
        json: { job_id: job.id, total: job.total, status: job.status, poll: pollUrl(job.id), report: reportUrl(job.id) },
        log: { key_id: key.id, job_id: job.id, total: job.total },
      };
    },
  };

  /** Every job endpoint starts the same way: batch scope, then the job if (and only if) this key owns it. */
  const jobRoute = (
    method: Route['method'],
    pattern: string,
    act: (job: JobRecord, key: StoredApiKey, request: HttpRequest) => Promise<HttpResponse>,
  ): Route => ({
    method,
    pattern,
    maxBodyBytes: 0,
    async handler(request) {
      const { key, rateHeaders } = await deps.gate.admit(request, ['batch']);
      const response = await act(await ownedJob(deps, request, key), key, request);
      return { ...response, headers: { ...response.headers, ...rateHeaders } };
    },
  });

  const status = jobRoute('GET', '/v1/batch/:id', async (job, key) => statusResponse(job, 200, key.id));

  const cancel = jobRoute('DELETE', '/v1/batch/:id', async (job, key, request) => {
    const cancelled = isActiveStatus(job.status) ? await guarded(deps, request, () => deps.jobs.cancel(job)) : null;
    if (!cancelled?.ended) {
      const finished = cancelled?.job ?? job;
      throw new AppError('job_already_finished', `The batch job is already ${finished.status}; nothing to cancel.`, {
        extensions: { job_status: finished.status },
      });
    }
    return statusResponse(cancelled.job, 200, key.id);
  });

  const report = jobRoute('GET', '/v1/batch/:id/report', async (job, key) => {
    if (isActiveStatus(job.status)) {
      throw new AppError('job_not_finished', `The batch job is ${job.status} (${job.processed} of ${job.total} rows); poll ${pollUrl(job.id)}.`, {
        headers: { 'retry-after': POLL_AFTER_SECONDS },
      });
    }
    return {
      status: 200,
      headers: {
        'content-type': 'text/csv; charset=utf-8',
        'content-disposition': `attachment; filename="batch-${job.id}.csv"`,
        'cache-control': 'no-store',
      },
      stream: reportChunks(deps.redis, deps.jobs.prefix, job),
      log: { key_id: key.id, job_id: job.id, rows: job.total },
    };
  });

  return [submit, status, cancel, report];
}
