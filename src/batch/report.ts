// The report of a terminal job, streamed: the header, then each chunk's stored lines in chunk order (chunks
// finish out of order; their lines are stored per chunk index). A chunk the job ended before recording
// (cancelled, deadline) is rendered from the kept input rows as not_screened with the job's terminal reason.
import type { RedisClient } from '../redis/connection.js';
import { notScreened, REPORT_HEADER, reportLine } from './csv.js';
import type { JobRecord } from './jobs.js';
import { batchKeys } from './keys.js';
import { decodeStoredRows } from '../store/stored-json.js';

/** Chunks fetched per round trip: at most 8 × 250 lines, a few hundred KB. */
const CHUNKS_PER_PAGE = 8;

export async function* reportChunks(redis: RedisClient, prefix: string, job: JobRecord): AsyncGenerator<string> {
  const keys = batchKeys(prefix, job.id);
  yield REPORT_HEADER;
  for (let first = 0; first < job.chunks; first += CHUNKS_PER_PAGE) {
    const indexes = Array.from({ length: Math.min(CHUNKS_PER_PAGE, job.chunks - first) }, (_, offset) => String(first + offset));
    const blocks = await redis.hmget(keys.out, ...indexes);
    const missing = indexes.filter((_, position) => blocks[position] === null);
    const rendered = new Map<string, string>();
    if (missing.length > 0) {
      const rowsJson = await redis.hmget(keys.rows, ...missing);
      missing.forEach((index, position) => {
        const json = rowsJson[position];
        if (!json) throw new Error(`job ${job.id}: chunk ${index} has neither lines nor rows (expired?)`);
        const result = notScreened(job.terminal_reason ?? 'job_failed');
        const firstRow = Number(index) * job.chunk_size;
        rendered.set(index, decodeStoredRows(json, `${keys.rows} ${index}`).map((row, offset) => reportLine(firstRow + offset + 1, row, result)).join(''));
      });
    }
    yield indexes.map((index, position) => blocks[position] ?? rendered.get(index) ?? '').join('');
  }
}
