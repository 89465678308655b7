// Bench entry for the service: starts exactly what production starts (startApp) in its own process, so the
// load generator never shares this event loop. Config comes from the environment like src/main.ts; the parent
// (bench/http-load.ts) learns the port over IPC, asks for Redis command counts ("stats") and stops us ("stop").
import type { Redis } from 'ioredis';
import { startApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/log.js';

const config = loadConfig(process.env);
const log = createLogger(config.LOG_LEVEL, config.ROLE);
const app = await startApp(config, log);

// Counts the commands the request-path client sends, so the bench can report Redis round trips per request
// without sharing Redis-wide INFO counters with whatever else uses the same Redis.
const commands: Record<string, number> = {};
const redis: Redis = app.parts.redis;
const send = redis.sendCommand.bind(redis);
redis.sendCommand = ((command, stream) => {
  commands[command.name] = (commands[command.name] ?? 0) + 1;
  return send(command, stream);
}) as Redis['sendCommand'];

async function stop(): Promise<void> {
  await app.stop();
  process.exit(0);
}

// CPU time since the last "stats" message: CPU per request is steadier than requests/s on a shared machine.
let cpuMark = process.cpuUsage();
process.on('message', (message) => {
  if (message === 'stop') void stop();
  if (message === 'stats') {
    const { user, system } = process.cpuUsage(cpuMark);
    cpuMark = process.cpuUsage();
    process.send?.({ commands: { ...commands }, cpuMicros: user + system });
    for (const name of Object.keys(commands)) delete commands[name];
  }
});
process.on('SIGTERM', () => void stop());
process.send?.({ port: app.http?.port ?? 0 });
