// Bench entry for the service: starts exactly what production starts (startApp) in its own process, so the
// load generator never shares this event loop. Config comes from the environment like src/main.ts; the parent
// (bench/http-load.ts) learns the port over IPC and stops us with a "stop" message.
import { startApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/log.js';

const config = loadConfig(process.env);
const log = createLogger(config.LOG_LEVEL, config.ROLE);
const app = await startApp(config, log);

async function stop(): Promise<void> {
  await app.stop();
  // Give pino's async destination a moment to drain before the process goes (a profile is written on exit too).
  process.exit(0);
}

process.on('message', (message) => {
  if (message === 'stop') void stop();
});
process.on('SIGTERM', () => void stop());
process.send?.({ port: app.http?.port ?? 0 });
