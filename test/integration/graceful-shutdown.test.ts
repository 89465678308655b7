// SIGTERM: the service stops accepting connections, finishes the request in flight, closes Redis and exits 0.
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanCarrier, startTestApp, type TestApp } from '../helpers/harness.js';
import { freePort } from '../helpers/private-redis.js';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
  await t.publishRules();
  await t.writeSnapshot([cleanCarrier('123456')]);
});

afterAll(async () => {
  await t.stop();
});

describe('graceful shutdown', () => {
  it('finishes an in-flight request after SIGTERM, refuses new connections, exits 0', async () => {
    const { key } = await t.createKey();
    const port = await freePort();
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', REDIS_PREFIX: t.config.REDIS_PREFIX, LOG_LEVEL: 'info', ROLE: 'api' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    await expect.poll(() => output.includes('"listening"'), { timeout: 20_000, interval: 50 }).toBe(true);

    // Start a request whose body is still arriving when SIGTERM lands.
    const body = JSON.stringify({ mc_number: '123456' });
    const socket = connect(port, '127.0.0.1');
    let reply = '';
    socket.on('data', (chunk) => {
      reply += chunk.toString();
    });
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(`POST /v1/eligibility HTTP/1.1\r\nHost: x\r\nx-api-key: ${key}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body.slice(0, 5)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    child.kill('SIGTERM');
    await expect.poll(() => output.includes('shutting down'), { timeout: 5000, interval: 20 }).toBe(true);

    const refused = await fetch(`http://127.0.0.1:${port}/v1/health`).then(() => false, () => true);
    expect(refused).toBe(true);

    socket.write(body.slice(5));
    await expect.poll(() => reply.includes('"eligible":true'), { timeout: 5000, interval: 20 }).toBe(true);
    expect(reply.startsWith('HTTP/1.1 200')).toBe(true);
    socket.end();
    expect(await exited).toBe(0);
    expect(output).not.toContain(key);
  });
});
