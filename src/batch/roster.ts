// Validation of a submitted roster (DESIGN §3) and its split into chunks. Hand-written rather than a zod
// schema because the order of the problems is part of the contract: shape (422 validation_failed), then
// emptiness (roster_empty) and size (roster_too_large), then the rows named one by one.
import { AppError, type FieldError } from '../errors.js';
import { MAX_CELL_CHARS, MAX_ROWS, type StoredRow } from './types.js';

const ROW_FIELDS = ['mc', 'dot', 'uei', 'ref'] as const;
const MAX_FIELD_ERRORS = 20;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Parsed JSON body → stored rows in input order, or throws the 422 AppError the contract names. */
export function parseRoster(body: unknown): StoredRow[] {
  if (!isPlainObject(body) || !Array.isArray(body.items)) {
    throw new AppError('validation_failed', 'The body must be a JSON object with an "items" array.', {
      errors: [{ path: isPlainObject(body) ? 'items' : '(body)', message: 'must be an array of row objects' }],
    });
  }
  const items: unknown[] = body.items;
  if (items.length === 0) throw new AppError('roster_empty', 'The roster has no rows; send 1 to 5000.');
  if (items.length > MAX_ROWS) {
    throw new AppError('roster_too_large', `The roster has ${items.length} rows; at most ${MAX_ROWS} are accepted per job.`);
  }
  const errors: FieldError[] = [];
  let invalidRows = 0;
  const rows = items.map((item, index): StoredRow => {
    if (!isPlainObject(item)) {
      invalidRows += 1;
      if (errors.length < MAX_FIELD_ERRORS) errors.push({ path: `items.${index}`, message: 'must be an object' });
      return [null, null, null, null];
    }
    let rowInvalid = false;
    const cells = ROW_FIELDS.map((field) => {
      const value = item[field];
      if (value === undefined || value === null) return null;
      if (typeof value === 'string' && value.length <= MAX_CELL_CHARS) return value;
      rowInvalid = true;
      if (errors.length < MAX_FIELD_ERRORS) {
        errors.push({ path: `items.${index}.${field}`, message: `must be a string of at most ${MAX_CELL_CHARS} characters` });
      }
      return null;
    });
    if (rowInvalid) invalidRows += 1;
    return cells as StoredRow;
  });
  if (invalidRows > 0) {
    throw new AppError('validation_failed', `${invalidRows} row(s) of the roster are invalid.`, { errors });
  }
  return rows;
}

/** Rows per chunk: small for small budgets (progress stays visible while a job waits), 250 at most. */
export function chunkSizeFor(batchBudgetPerMinute: number): number {
  return Math.max(1, Math.min(250, Math.floor(batchBudgetPerMinute / 10)));
}

export function toChunks<T>(rows: readonly T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let start = 0; start < rows.length; start += size) chunks.push(rows.slice(start, start + size));
  return chunks;
}

/** The part of a key's budget batch rows may draw, leaving `headroom` for the key's single checks. */
export function batchBudgetLimit(ratePerMinute: number, headroom: number): number {
  return Math.max(1, Math.floor(ratePerMinute * (1 - headroom)));
}
