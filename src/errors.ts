// The closed set of error kinds the service can answer with. No HTTP here: src/http/problem.ts maps each
// kind to a status and an RFC 9457 problem type in one table.

export const ERROR_KINDS = [
  'invalid_json',
  'validation_failed',
  'unauthorized',
  'forbidden',
  'not_found',
  'route_not_found',
  'method_not_allowed',
  'payload_too_large',
  'rate_limited',
  'active_job_exists',
  'job_not_finished',
  'roster_empty',
  'roster_too_large',
  'internal_error',
  'job_already_finished',
  'service_unavailable',
  'replay_queue_full',
  'policy_below_floor',
  'not_overridable',
  'same_actor',
  'override_status_conflict',
] as const;

export type ErrorKind = (typeof ERROR_KINDS)[number];

export interface FieldError {
  path: string;
  message: string;
}

export interface AppErrorOptions {
  cause?: unknown;
  errors?: FieldError[];
  /** Extension members added to the problem body (e.g. active_job_id). */
  extensions?: Record<string, unknown>;
  /** Extra response headers (e.g. Retry-After). */
  headers?: Record<string, string>;
}

export class AppError extends Error {
  readonly errors: FieldError[] | undefined;
  readonly extensions: Record<string, unknown> | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(readonly kind: ErrorKind, detail: string, options: AppErrorOptions = {}) {
    super(detail, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.errors = options.errors;
    this.extensions = options.extensions;
    this.headers = options.headers;
  }
}
