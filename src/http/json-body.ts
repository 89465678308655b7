// Turning a raw body into a typed value: 400 when it is not JSON, 422 with field errors when the schema fails.
import type { z } from 'zod';
import { AppError, type FieldError } from '../errors.js';

export function parseJsonBody<T extends z.ZodType>(body: Buffer, schema: T): z.infer<T> {
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch {
    throw new AppError('invalid_json', 'The request body must be a JSON document.');
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    throw new AppError('validation_failed', 'The request body does not match the expected shape.', {
      errors: toFieldErrors(parsed.error.issues),
    });
  }
  return parsed.data;
}

export function toFieldErrors(issues: readonly z.core.$ZodIssue[]): FieldError[] {
  return issues.slice(0, 20).map((issue) => ({
    path: issue.path.length > 0 ? issue.path.map(String).join('.') : '(body)',
    message: issue.message,
  }));
}
