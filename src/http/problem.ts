// One table from error kinds to RFC 9457 problem responses. Every kind has exactly one row; a drift test keeps
// this table, ERROR_KINDS and the README's problem list in step.
import { AppError, type ErrorKind } from '../errors.js';

export const PROBLEM_TYPE_BASE = 'https://carrier-eligibility.dev/problems/';

export const PROBLEMS: Record<ErrorKind, { status: number; title: string }> = {
  invalid_json: { status: 400, title: 'Request body is not valid JSON' },
  validation_failed: { status: 422, title: 'Request body failed validation' },
  unauthorized: { status: 401, title: 'Missing or invalid API key' },
  forbidden: { status: 403, title: 'API key lacks the required scope' },
  not_found: { status: 404, title: 'Resource not found' },
  route_not_found: { status: 404, title: 'No such endpoint' },
  method_not_allowed: { status: 405, title: 'Method not allowed on this endpoint' },
  payload_too_large: { status: 413, title: 'Request body too large' },
  rate_limited: { status: 429, title: 'Rate budget exhausted' },
  active_job_exists: { status: 409, title: 'This API key already has an active batch job' },
  job_not_finished: { status: 409, title: 'The batch job has not finished yet' },
  roster_empty: { status: 422, title: 'Roster is empty' },
  roster_too_large: { status: 422, title: 'Roster has more than 5000 rows' },
  internal_error: { status: 500, title: 'Internal error' },
  job_already_finished: { status: 409, title: 'The batch job has already finished' },
  service_unavailable: { status: 503, title: 'Service temporarily unavailable' },
  replay_queue_full: { status: 409, title: 'The webhook endpoint\'s replay queue is full' },
  policy_below_floor: { status: 422, title: 'Policy is invalid or looser than the rule set' },
  not_overridable: { status: 422, title: 'This reason can never be overridden' },
  override_status_conflict: { status: 409, title: 'The override\'s status does not allow this change' },
  same_actor: { status: 403, title: 'An override is approved or rejected by someone other than its requester' },
};

export interface ProblemResponse {
  status: number;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

/** Builds the problem response for any thrown value; anything but an AppError becomes a generic 500. */
export function toProblem(error: unknown, instance?: string): ProblemResponse {
  const appError = error instanceof AppError
    ? error
    : new AppError('internal_error', 'The service could not complete the request; it has been logged.');
  const { status, title } = PROBLEMS[appError.kind];
  const body: Record<string, unknown> = {
    type: `${PROBLEM_TYPE_BASE}${appError.kind}`,
    title,
    status,
    detail: appError.message,
    code: appError.kind,
    ...(instance ? { instance } : {}),
    ...(appError.errors ? { errors: appError.errors.slice(0, 20) } : {}),
    ...appError.extensions,
  };
  return { status, headers: { 'content-type': 'application/problem+json', ...appError.headers }, body };
}
