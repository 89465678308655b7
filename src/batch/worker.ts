// A batch worker process's loop. Each job has its own stream and consumer group (so the chunk-completion
// script can acknowledge inside the job's own cluster slot); workers find jobs in the active-jobs set and
// read one chunk at a time from each, round robin, up to WORKER_CONCURRENCY chunks in flight. A job that
// waits for budget is skipped until then, so one key's spent budget never idles the others' work.
//
// Crash safety: an entry read but not recorded stays pending in the group; any worker XAUTOCLAIMs entries idle
// for BATCH_CLAIM_IDLE_MS. A worker busy on a chunk (e.g. waiting for budget) keeps it by heartbeat. Any Redis
// failure is logged and retried with backoff: a worker outlives Redis restarts.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { RedisClient } from '../redis/connection.js';
import type { Logger } from '../log.js';
import { luaScripts } from '../redis/scripts.js';
import type { ChunkScreener } from './chunk-screener.js';
import type { BatchJobs } from './jobs.js';
import { batchKeys, WORKER_GROUP } from './keys.js';

const IDLE_POLL_MS = 250;
const REAP_EVERY_MS = 1000;

export interface BatchWorkerOptions {
  redis: RedisClient;
  /** A connection of its own for the blocking read of job announcements. */
  blocking: RedisClient;
  jobs: BatchJobs;
  screener: ChunkScreener;
  concurrency: number;
  claimIdleMs: number;
  log: Logger;
}

type StreamEntry = [id: string, fields: string[]];

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

export class BatchWorker {
  readonly consumer = `${hostname()}-${process.pid}-${randomBytes(4).toString('hex')}`;
  private running = false;
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly waitUntil = new Map<string, number>();
  private readonly lastClaim = new Map<string, number>();
  private nudge = deferred();
  private round = 0;
  private lastReap = 0;
  private loopDone: Promise<void> = Promise.resolve();

  constructor(private readonly options: BatchWorkerOptions) {}

  start(): void {
    this.running = true;
    this.loopDone = this.loop();
    void this.listen();
    this.options.log.info({ consumer: this.consumer, concurrency: this.options.concurrency }, 'batch worker started');
  }

  /** Stops taking chunks; waits up to graceMs for chunks in flight (unfinished ones are claimed elsewhere). */
  async stop(graceMs: number): Promise<void> {
    this.running = false;
    this.poke();
    this.options.blocking.disconnect();
    const settled = Promise.allSettled([this.loopDone, ...this.inFlight.values()]);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([settled, new Promise((resolve) => {
      timer = setTimeout(resolve, graceMs);
    })]);
    clearTimeout(timer);
  }

  private poke(): void {
    this.nudge.resolve();
    this.nudge = deferred();
  }

  private async pause(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.nudge.promise, new Promise((resolve) => {
      timer = setTimeout(resolve, ms);
    })]);
    clearTimeout(timer);
  }

  private async loop(): Promise<void> {
    let backoffMs = 0;
    while (this.running) {
      try {
        if (Date.now() - this.lastReap >= REAP_EVERY_MS) await this.reap();
        const started = await this.fill();
        backoffMs = 0;
        if (!this.running) break;
        if (started === 0 || this.inFlight.size >= this.options.concurrency) await this.pause(Math.min(IDLE_POLL_MS, this.options.claimIdleMs / 2));
      } catch (error) {
        backoffMs = Math.min(2000, Math.max(100, backoffMs * 2));
        this.options.log.warn({ err: error, retry_in_ms: backoffMs }, 'batch worker: redis call failed; backing off');
        await this.pause(backoffMs);
      }
    }
  }

  /** Wakes the loop as soon as a job is accepted anywhere. */
  private async listen(): Promise<void> {
    const { blocking, jobs } = this.options;
    let lastId = '$';
    while (this.running) {
      try {
        const reply = await blocking.xread('BLOCK', 1000, 'STREAMS', jobs.global.announce, lastId) as [string, StreamEntry[]][] | null;
        const entries = reply?.[0]?.[1] ?? [];
        const newest = entries[entries.length - 1];
        if (newest) {
          lastId = newest[0];
          this.poke();
        }
      } catch {
        if (this.running) await this.pause(500);
      }
    }
  }

  /** Fails overdue jobs and releases slots of finished ones (repairs crashes between the two steps). */
  private async reap(): Promise<void> {
    this.lastReap = Date.now();
    const { jobs } = this.options;
    const active = await jobs.activeJobIds();
    for (const map of [this.waitUntil, this.lastClaim]) {
      for (const id of map.keys()) if (!active.includes(id)) map.delete(id);
    }
    for (const id of active) {
      const job = await jobs.read(id);
      if (job) await jobs.settle(job);
      else await this.options.redis.zrem(jobs.global.activeJobs, id);
    }
  }

  /** Starts chunks, one per job per round, until the concurrency is used or no job has work. */
  private async fill(): Promise<number> {
    const ids = await this.options.jobs.activeJobIds();
    const offset = this.round++;
    let started = 0;
    let progress = true;
    while (progress && this.running && this.inFlight.size < this.options.concurrency) {
      progress = false;
      for (let k = 0; k < ids.length && this.inFlight.size < this.options.concurrency; k++) {
        const jobId = ids[(offset + k) % ids.length];
        if (!jobId || (this.waitUntil.get(jobId) ?? 0) > Date.now()) continue;
        const entry = await this.nextEntry(jobId);
        if (!entry) continue;
        this.run(jobId, entry);
        started += 1;
        progress = true;
      }
    }
    return started;
  }

  /** A stalled entry of a dead worker first (checked every claimIdle/2 per job), else a new one. */
  private async nextEntry(jobId: string): Promise<StreamEntry | null> {
    const { redis, jobs, claimIdleMs } = this.options;
    const { stream } = batchKeys(jobs.prefix, jobId);
    try {
      if (Date.now() - (this.lastClaim.get(jobId) ?? 0) >= claimIdleMs / 2) {
        this.lastClaim.set(jobId, Date.now());
        const [, claimed] = await redis.xautoclaim(stream, WORKER_GROUP, this.consumer, claimIdleMs, '0-0', 'COUNT', 1) as [string, StreamEntry[]];
        const stalled = claimed.find((entry) => entry[1] && !this.inFlight.has(`${jobId}/${entry[0]}`));
        if (stalled) return stalled;
      }
      const reply = await redis.xreadgroup('GROUP', WORKER_GROUP, this.consumer, 'COUNT', 1, 'STREAMS', stream, '>') as [string, StreamEntry[]][] | null;
      return reply?.[0]?.[1]?.[0] ?? null;
    } catch (error) {
      // The job ended (its stream is deleted with the group) between listing and reading.
      if (error instanceof Error && error.message.includes('NOGROUP')) return null;
      throw error;
    }
  }

  private run(jobId: string, [entryId, fields]: StreamEntry): void {
    const { jobs, screener, log, redis, claimIdleMs } = this.options;
    const chunkIndex = Number(fields[fields.indexOf('chunk') + 1]);
    const { stream } = batchKeys(jobs.prefix, jobId);
    let mine = true;
    const heartbeat = setInterval(() => {
      luaScripts.batchHeartbeat(redis, stream, WORKER_GROUP, this.consumer, entryId)
        .then((owned) => {
          if (!owned) mine = false;
        }, () => undefined);
    }, Math.max(50, Math.floor(claimIdleMs / 3)));
    const name = `${jobId}/${entryId}`;
    const task = (async () => {
      try {
        const outcome = await screener.screen({ jobId, entryId, chunkIndex, stillMine: () => mine && this.running });
        if (outcome === 'completed') {
          const job = await jobs.read(jobId);
          if (job) await jobs.release(job);
          log.info({ job_id: jobId }, 'batch job completed');
        }
      } catch (error) {
        // The entry stays pending and is claimed again after BATCH_CLAIM_IDLE_MS.
        log.warn({ err: error, job_id: jobId, chunk: chunkIndex }, 'batch chunk failed; it will be retried');
      } finally {
        clearInterval(heartbeat);
        this.inFlight.delete(name);
        this.poke();
      }
    })();
    this.inFlight.set(name, task);
  }

  onBudgetWait(jobId: string, untilMs: number): void {
    this.waitUntil.set(jobId, untilMs);
  }
}
