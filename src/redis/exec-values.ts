// The values of a MULTI or a pipeline. ioredis answers [error, value] pairs (and null for an aborted MULTI); the
// first error is thrown here, so callers get the values alone and decode each with their schema.

export function execValues(results: Array<[Error | null, unknown]> | null, what: string): unknown[] {
  if (!results) throw new Error(`${what} aborted`);
  return results.map(([error, value]) => {
    if (error) throw error;
    return value;
  });
}
