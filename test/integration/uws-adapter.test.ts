// The uWS adapter on its own: request bodies kept intact past the callback that delivered them, streaming with a
// failure midway, and a client that leaves mid-stream.
import { createHash, randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpServer, type HttpServer } from '../../src/http/uws.js';
import { createLogger } from '../../src/log.js';

let server: HttpServer;
let produced = 0;

async function* failingStream(): AsyncIterable<string> {
  yield 'row,1\n';
  await new Promise((resolve) => setTimeout(resolve, 20));
  throw new Error('redis dropped mid-report');
}

async function* endlessStream(): AsyncIterable<string> {
  const line = `${'x'.repeat(1023)}\n`;
  for (;;) {
    produced += 1;
    yield line.repeat(64);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

beforeAll(async () => {
  server = await startHttpServer([
    { method: 'GET', pattern: '/fail', maxBodyBytes: 0, handler: async () => ({ status: 200, headers: { 'content-type': 'text/csv' }, stream: failingStream() }) },
    // Answers only after a delay, when uWS has long reused the memory the chunks arrived in.
    { method: 'POST', pattern: '/digest', maxBodyBytes: 1024 * 1024, handler: async (request) => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      return { status: 200, text: `${request.body.length}:${createHash('sha256').update(request.body).digest('hex')}` };
    } },
    // Declares the one header it reads, so the adapter copies only that one (and reads its own two into locals).
    { method: 'POST', pattern: '/echo-key', maxBodyBytes: 16, headers: ['x-api-key'], handler: async (request) => ({
      status: 200, json: { headers: request.headers, body: request.body.toString() },
    }) },
    { method: 'GET', pattern: '/endless', maxBodyBytes: 0, handler: async () => ({ status: 200, headers: { 'content-type': 'text/csv' }, stream: endlessStream() }) },
  ], { host: '127.0.0.1', port: 0, log: createLogger('silent', 'test') });
});

afterAll(async () => {
  await server.close(1000);
});

describe('uWS adapter request bodies', () => {
  it('keeps every body byte for byte after its chunks are gone, small and multi-chunk, many at once', async () => {
    const bodies = [...Array.from({ length: 40 }, (_, index) => randomBytes(20 + index)), randomBytes(300 * 1024), randomBytes(64 * 1024 + 7)];
    const answers = await Promise.all(bodies.map((body) => fetch(`http://127.0.0.1:${server.port}/digest`, { method: 'POST', body })
      .then((response) => response.text())));
    expect(answers).toEqual(bodies.map((body) => `${body.length}:${createHash('sha256').update(body).digest('hex')}`));
  });
});

/** Sends raw request bytes and resolves with everything the server wrote before it closed or went quiet. */
function rawExchange(request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.port, '127.0.0.1', () => socket.write(request));
    let answer = '';
    const timer = setTimeout(() => socket.end(), 500);
    socket.on('data', (chunk) => {
      answer += chunk.toString('latin1');
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(answer);
    });
    socket.on('error', reject);
  });
}

describe('uWS adapter request headers', () => {
  it('gives a route only the headers it declares, and takes the request id and declared length itself', async () => {
    const response = await fetch(`http://127.0.0.1:${server.port}/echo-key`, {
      method: 'POST', body: 'hello', headers: { 'x-api-key': 'k1', 'x-request-id': 'trace-7.a', 'x-other': 'no' },
    });
    expect(response.headers.get('x-request-id')).toBe('trace-7.a');
    expect(await response.json()).toEqual({ headers: { 'x-api-key': 'k1' }, body: 'hello' });
  });

  it('answers 413 from the declared content-length alone, before any body arrives', async () => {
    const answer = await rawExchange('POST /echo-key HTTP/1.1\r\nhost: x\r\nx-request-id: big-1\r\ncontent-length: 5000\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toMatch(/x-request-id: big-1/i);
    expect(answer).toContain('payload_too_large');
  });
});

describe('uWS adapter streaming', () => {
  it('cuts the connection when a stream fails midway, so the client never takes a short body for a whole one', async () => {
    const response = await fetch(`http://127.0.0.1:${server.port}/fail`);
    expect(response.status).toBe(200);
    await expect(response.text()).rejects.toThrow();
    await expect.poll(() => server.inFlight(), { timeout: 2000 }).toBe(0);
  });

  it('stops producing and releases the request when the client goes away during backpressure', async () => {
    const controller = new AbortController();
    const response = await fetch(`http://127.0.0.1:${server.port}/endless`, { signal: controller.signal });
    const reader = response.body?.getReader();
    await reader?.read();
    controller.abort();
    await expect.poll(() => server.inFlight(), { timeout: 3000 }).toBe(0);
    const after = produced;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(produced - after).toBeLessThanOrEqual(1);
  });
});
