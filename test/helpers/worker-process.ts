// A real worker process (ROLE=worker, `src/main.ts`) on the test app's Redis and prefix, for tests that SIGKILL
// workers mid-work. Resolves once the worker says it has started; every spawned child is kept in `children` so
// afterAll can kill what is left.
import { spawn, type ChildProcess } from 'node:child_process';
import type { Config } from '../../src/config.js';

export function startWorkerProcess(
  config: Pick<Config, 'REDIS_URL' | 'REDIS_PREFIX'>, env: Record<string, string>, children: ChildProcess[],
): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    env: {
      ...process.env, ROLE: 'worker', PORT: '0', HOST: '127.0.0.1', REDIS_URL: config.REDIS_URL,
      REDIS_PREFIX: config.REDIS_PREFIX, LOG_LEVEL: 'info', STATE_POLL_MS: '100', ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('batch worker started')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`worker exited early (${code})`)));
  });
}
