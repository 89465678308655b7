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

export async function startHeapSampling(samplingIntervalBytes = 4096): Promise<HeapSampling> {
  const session = new Session();
  session.connect();
  await session.post('HeapProfiler.enable');
  await session.post('HeapProfiler.startSampling', {
    samplingInterval: samplingIntervalBytes, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true,
  });
  return {
    async stop(file) {
      const { profile } = await session.post('HeapProfiler.stopSampling');
      writeFileSync(file, JSON.stringify(profile));
      session.disconnect();
    },
  };
}
