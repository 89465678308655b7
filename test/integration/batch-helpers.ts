// Shared steps of the batch integration tests.
import { parseString } from 'fast-csv';
import { expect } from 'vitest';
import { waitFor, type TestApp } from '../helpers/harness.js';

export interface JobStatusBody {
  job_id: string;
  status: string;
  total: number;
  processed: number;
  summary: Record<string, number>;
  started_at: string | null;
  finished_at: string | null;
  [field: string]: unknown;
}

export async function submit(t: TestApp, key: string, items: unknown[]): Promise<{ job_id: string; total: number }> {
  const response = await t.post('/v1/batch', { items }, { 'x-api-key': key });
  expect(response.status, await response.clone().text()).toBe(202);
  return await response.json() as { job_id: string; total: number };
}

export function del(t: TestApp, path: string, key: string): Promise<Response> {
  return fetch(`${t.baseUrl}${path}`, { method: 'DELETE', headers: { 'x-api-key': key } });
}

export async function jobStatus(t: TestApp, key: string, id: string): Promise<JobStatusBody> {
  const response = await t.get(`/v1/batch/${id}`, { 'x-api-key': key });
  expect(response.status).toBe(200);
  return await response.json() as JobStatusBody;
}

export async function waitTerminal(t: TestApp, key: string, id: string, timeoutMs = 20_000): Promise<JobStatusBody> {
  const { value } = await waitFor(() => jobStatus(t, key, id), (job) => !['queued', 'running'].includes(job.status), timeoutMs);
  return value;
}

/** Parses CSV text the way a consumer would (fast-csv), returning the header and the records. */
export async function parseCsv(text: string): Promise<{ header: string[]; records: Record<string, string>[] }> {
  const rows: string[][] = [];
  await new Promise<void>((resolve, reject) => {
    parseString(text, { headers: false })
      .on('error', reject)
      .on('data', (row: string[]) => rows.push(row))
      .on('end', () => resolve());
  });
  const [header = [], ...body] = rows;
  return { header, records: body.map((row) => Object.fromEntries(header.map((name, index) => [name, row[index] ?? '']))) };
}

export async function report(t: TestApp, key: string, id: string): Promise<{ header: string[]; records: Record<string, string>[]; text: string; response: Response }> {
  const response = await t.get(`/v1/batch/${id}/report`, { 'x-api-key': key });
  expect(response.status).toBe(200);
  const text = await response.text();
  return { ...(await parseCsv(text)), text, response };
}
