// Process entry point: config, logger, start by ROLE, graceful shutdown on SIGTERM/SIGINT.
import { ConfigError, loadConfig } from './config.js';
import { startApp } from './app.js';
import { createLogger } from './log.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const log = createLogger(config.LOG_LEVEL, config.ROLE);
  const app = await startApp(config, log);
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down: no new connections, finishing in-flight work');
    app.stop().then(() => process.exit(0), (error: unknown) => {
      log.error({ err: error }, 'shutdown failed');
      process.exit(1);
    });
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((error: unknown) => {
  process.stderr.write(`fatal: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
