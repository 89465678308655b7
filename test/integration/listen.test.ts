// Listening rules: a second instance on a port that is already taken exits non-zero with one line (uWS would
// otherwise share the port through SO_REUSEPORT and split the traffic), and ROLE=worker serves health and metrics
// (for its probes and scrape target) but no API; METRICS_PORT puts /metrics on a port of its own.
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/harness.js';

let api: TestApp;
let worker: TestApp;
let split: TestApp;

beforeAll(async () => {
  api = await startTestApp({ ROLE: 'api' });
  worker = await startTestApp({ ROLE: 'worker' });
  split = await startTestApp({ ROLE: 'api', METRICS_PORT: '0' });
});

afterAll(async () => {
  await api?.stop();
  await worker?.stop();
  await split?.stop();
});

function runMain(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      env: { ...process.env, LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

describe('listening', () => {
  it('refuses to start on a port another instance already listens on', async () => {
    const port = api.app.http?.port;
    expect(port).toBeGreaterThan(0);
    for (const role of ['api', 'worker']) {
      const { code, stderr } = await runMain({
        PORT: String(port), HOST: '127.0.0.1', ROLE: role, REDIS_PREFIX: api.config.REDIS_PREFIX,
      });
      expect(code).not.toBe(0);
      expect(code).not.toBeNull();
      const lines = stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port} .*refusing to start`));
    }
    // The first instance still owns the port and answers.
    expect((await api.get('/v1/health')).status).toBe(200);
  });

  it('ROLE=worker answers health and metrics, and nothing of the API', async () => {
    const health = await worker.get('/v1/health');
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ version: expect.any(String) });
    const metrics = await worker.get('/metrics');
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain('ce_redis_up');
    expect((await worker.post('/v1/eligibility', { mc_number: '1' })).status).toBe(404);
    expect((await worker.post('/v1/batch', { items: [{ mc: '1' }] })).status).toBe(404);
  });

  it('METRICS_PORT moves /metrics to its own listener and off the API port', async () => {
    const metricsPort = split.app.metricsHttp?.port;
    expect(metricsPort).toBeGreaterThan(0);
    expect(metricsPort).not.toBe(split.app.http?.port);
    expect((await split.get('/metrics')).status).toBe(404);
    expect((await split.get('/v1/health')).status).toBe(200);
    const metrics = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain('ce_redis_up');
    expect((await fetch(`http://127.0.0.1:${metricsPort}/v1/health`)).status).toBe(404);
    expect(api.app.metricsHttp).toBeNull();
  });
});
