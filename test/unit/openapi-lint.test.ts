// The described surface lints clean under redocly's recommended rules (operationId and security on every
// operation, a license, a 4XX on every operation, …): client generators name methods from operationId, and a
// broker's review reads the document before the code.
import { fileURLToPath } from 'node:url';
import { createConfig, lint } from '@redocly/openapi-core';
import { describe, expect, it } from 'vitest';

describe('OpenAPI document', () => {
  it('has no error and no warning under redocly recommended', async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lint({ ref: fileURLToPath(new URL('../../src/http/openapi.json', import.meta.url)), config });
    expect(problems.map((problem) => `${problem.severity} ${problem.ruleId}: ${problem.message} at ${problem.location[0]?.pointer ?? '?'}`)).toEqual([]);
  });
});
