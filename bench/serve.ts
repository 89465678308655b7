// Bench entry for the service: starts exactly what production starts (startApp) in its own process, so the
// load generator never shares this event loop. Config comes from the environment like src/main.ts; the parent
// (bench/http-load.ts) learns the port over IPC, asks for CPU/GC/Redis counts ("stats") and stops us ("stop").
import { startApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/log.js';
import { countCommands, serveBenchStats } from './child-stats.js';

const config = loadConfig(process.env);
const log = createLogger(config.LOG_LEVEL, config.ROLE);
const app = await startApp(config, log);

// Round trips of the request-path client (INFO commandstats on the private Redis gives what Redis executed).
const takeCommands = countCommands(app.parts.redis);

serveBenchStats({
  stop: () => app.stop(),
  takeCommands,
});
process.send?.({ port: app.http?.port ?? 0 });
