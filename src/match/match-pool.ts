// Name matching on a second core during an ingest.
//
// Against the real lists, matching a carrier's names costs ~85 µs, more than everything else the census pass does
// for it (parse, build, encode, write: ~50 µs), and both ran on one thread: a 1M-carrier ingest took 141 s. The
// matching of one carrier does not depend on any other, so a worker thread holding its own copy of the index
// (rebuilt from the same inputs: WatchlistIndex.inputs()) matches a chunk of rows while the main thread parses
// and writes the chunks around it. The hits are the ones the main thread's index would give (same inputs, same
// code); a worker that fails is given up and the caller matches on its own thread.
import { Worker } from 'node:worker_threads';
import type { WatchlistHit } from '../core/carrier.js';
import type { CarrierPlace, IndexInputs } from './watchlist-index.js';

/** One carrier's names (legal, DBA, others) and its census place. */
export interface MatchItem {
  names: Array<string | null>;
  place: CarrierPlace | null;
}

export interface MatchBatch {
  id: number;
  items: MatchItem[];
}

export type MatchReply = { id: number; hits: WatchlistHit[][] } | { id: number; error: string };

/**
 * The worker's heap: its index and match caches need ~150 MB against the real lists; a worker that outgrows this
 * ends (ERR_WORKER_OUT_OF_MEMORY) and the ingest matches the rest on its own thread.
 */
const WORKER_HEAP = { maxOldGenerationSizeMb: 192, maxYoungGenerationSizeMb: 16 };

/** The worker thread: compiled, its .js file; run from the TypeScript sources (tsx), it registers tsx first. */
function spawnWorker(workerData: IndexInputs): Worker {
  const options = { workerData, resourceLimits: WORKER_HEAP };
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./match-worker.js', import.meta.url), options);
  const tsx = import.meta.resolve('tsx/esm/api');
  const entry = new URL('./match-worker.ts', import.meta.url).href;
  const code = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); })`;
  return new Worker(code, { ...options, eval: true });
}

/** How long the worker may take to build its index before the ingest matches on its own thread. */
const START_TIMEOUT_MS = 60_000;

export class NameMatchWorker {
  private nextId = 0;
  private readonly waiting = new Map<number, { resolve: (hits: WatchlistHit[][]) => void; reject: (error: Error) => void }>();
  private failure: Error | null = null;
  private closed = false;

  private constructor(private readonly worker: Worker) {
    worker.on('message', (reply: MatchReply) => {
      const waiter = this.waiting.get(reply.id);
      if (!waiter) return;
      this.waiting.delete(reply.id);
      if ('error' in reply) waiter.reject(new Error(`name matching failed in the worker thread: ${reply.error}`));
      else waiter.resolve(reply.hits);
    });
    const fail = (error: Error) => {
      this.failure ??= error;
      for (const waiter of this.waiting.values()) waiter.reject(error);
      this.waiting.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => {
      if (!this.closed) fail(new Error(`the name-matching worker thread exited (code ${code})`));
    });
  }

  /** A worker holding an index built from `inputs`, once it is ready to match. */
  static start(inputs: IndexInputs): Promise<NameMatchWorker> {
    return new Promise((resolve, reject) => {
      const worker = spawnWorker(inputs);
      const settle = (outcome: () => void) => {
        clearTimeout(timer);
        worker.off('error', early).off('exit', exited).off('message', ready);
        outcome();
      };
      const early = (error: unknown) => settle(() => reject(error instanceof Error ? error : new Error(String(error))));
      const exited = (code: number) => early(new Error(`the name-matching worker thread exited (code ${code}) before it was ready`));
      const ready = () => settle(() => resolve(new NameMatchWorker(worker)));
      const timer = setTimeout(() => {
        void worker.terminate();
        early(new Error(`the name-matching worker thread was not ready within ${START_TIMEOUT_MS / 1000} s`));
      }, START_TIMEOUT_MS);
      worker.on('error', early).on('exit', exited).on('message', ready);
    });
  }

  /** The hits of each item, in order. Rejects once the worker has failed. */
  match(items: MatchItem[]): Promise<WatchlistHit[][]> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage({ id, items } satisfies MatchBatch);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.worker.terminate();
  }
}
