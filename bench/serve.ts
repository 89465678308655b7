// Bench entry for the service: starts exactly what production starts (startApp) in its own process, so the
// load generator never shares this event loop. Config comes from the environment like src/main.ts; the parent
// (bench/http-load.ts) learns the port over IPC, asks for CPU/GC/Redis counts ("stats") and stops us ("stop").
import { startApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/log.js';
import { countCommands, serveBenchStats } from './child-stats.js';
import { startHeapSampling, type HeapSampling } from './heap-sampling.js';

const config = loadConfig(process.env);
const log = createLogger(config.LOG_LEVEL, config.ROLE);
const app = await startApp(config, log);

// Round trips of the request-path client (INFO commandstats on the private Redis gives what Redis executed).
const takeCommands = countCommands(app.parts.redis);

// BENCH_HEAP_PROF_DIR=DIR (set on the bench command, passed down): samples every allocation, freed ones included,
// during the first measured run only (from its opening "stats" to its closing one), so bytes ÷ that run's
// requests is the allocation per request. Written to DIR/serve-<pid>.heapprofile; bench/heap-summary.ts reads it.
// BENCH_HEAP_RETAINED=1: only what is still in the heap at the end of the run (see startHeapSampling).
const heapProfDir = process.env.BENCH_HEAP_PROF_DIR;
if (heapProfDir) {
  let sampling: HeapSampling | null = null;
  let statsCalls = 0;
  process.on('message', (message) => {
    if (message !== 'stats') return;
    statsCalls += 1;
    if (statsCalls === 1) void startHeapSampling(4096, process.env.BENCH_HEAP_RETAINED === '1').then((started) => { sampling = started; });
    if (statsCalls === 2) void sampling?.stop(`${heapProfDir}/serve-${process.pid}.heapprofile`);
  });
}

serveBenchStats({
  stop: () => app.stop(),
  takeCommands,
});
process.send?.({ port: app.http?.port ?? 0 });
