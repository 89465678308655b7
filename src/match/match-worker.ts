// The worker thread of NameMatchWorker (match-pool.ts): rebuilds the watch-list index from the inputs it was
// given and answers batches of carrier names with their hits, in order.
import { parentPort, workerData } from 'node:worker_threads';
import type { MatchBatch, MatchReply } from './match-pool.js';
import { WatchlistIndex, type IndexInputs } from './watchlist-index.js';

const index = WatchlistIndex.fromInputs(workerData as IndexInputs);
// The index finalises on its first query: done here, before the ingest's first batch waits on it.
index.match(['warm up']);
const port = parentPort;
if (port === null) throw new Error('match-worker.ts runs only as a worker thread');

port.on('message', (batch: MatchBatch) => {
  let reply: MatchReply;
  try {
    reply = { id: batch.id, hits: batch.items.map((item) => index.match(item.names, item.place)) };
  } catch (error) {
    reply = { id: batch.id, error: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(reply);
});
port.postMessage({ ready: true });
