// Allocation sampling for a bench server (BENCH_HEAP_PROF=1): every sampled allocation, including the objects a
// scavenge or a mark-compact already freed, so the profile shows what a request allocates and not only what is
// still alive at the end. Written as a .heapprofile (Chrome DevTools' format) when the server stops;
// `node --import tsx bench/heap-summary.ts FILE` prints bytes by allocating function.
import { Session } from 'node:inspector/promises';
import { writeFileSync } from 'node:fs';

export interface HeapSampling {
  /** Stops sampling and writes the profile to `file`. */
  stop(file: string): Promise<void>;
}

/**
 * `retainedOnly`: sample only what is still in the heap when sampling stops (a freed object leaves the profile
 * when the GC frees it): in a process whose scavenges promote short-lived objects, the old generation's
 * not-yet-collected garbage shows up here, by allocation site.
 */
export async function startHeapSampling(samplingIntervalBytes = 4096, retainedOnly = false): Promise<HeapSampling> {
  const session = new Session();
  session.connect();
  await session.post('HeapProfiler.enable');
  await session.post('HeapProfiler.startSampling', {
    samplingInterval: samplingIntervalBytes,
    includeObjectsCollectedByMajorGC: !retainedOnly, includeObjectsCollectedByMinorGC: !retainedOnly,
  });
  return {
    async stop(file) {
      const { profile } = await session.post('HeapProfiler.stopSampling');
      writeFileSync(file, JSON.stringify(profile));
      session.disconnect();
    },
  };
}
