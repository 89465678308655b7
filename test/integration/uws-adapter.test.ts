// The uWS adapter on its own: streaming with a failure midway, and a client that leaves mid-stream.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpServer, type HttpServer } from '../../src/http/uws.js';
import { AppError } from '../../src/errors.js';
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
    { method: 'GET', pattern: '/endless', maxBodyBytes: 0, handler: async () => ({ status: 200, headers: { 'content-type': 'text/csv' }, stream: endlessStream() }) },
    // Reply routes (the eligibility route's form): answered later, from outside the request callback.
    {
      method: 'POST', pattern: '/reply-twice', maxBodyBytes: 64,
      respond: (request, reply) => setImmediate(() => {
        reply.send({ status: 201, text: `first:${request.body.toString()}` });
        reply.send({ status: 200, text: 'second' });
        reply.fail(new AppError('not_found', 'too late'));
      }),
    },
    {
      method: 'POST', pattern: '/reply-fail', maxBodyBytes: 64,
      respond: (_request, reply) => setImmediate(() => reply.fail(new AppError('rate_limited', 'spent', { headers: { 'retry-after': '7' } }))),
    },
    {
      method: 'POST', pattern: '/reply-throws', maxBodyBytes: 64,
      respond: () => {
        throw new AppError('validation_failed', 'bad field');
      },
    },
  ], { host: '127.0.0.1', port: 0, log: createLogger('silent', 'test') });
});

afterAll(async () => {
  await server.close(1000);
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

describe('uWS adapter reply routes', () => {
  const post = (path: string) => fetch(`http://127.0.0.1:${server.port}${path}`, { method: 'POST', body: 'hi' });

  it('sends the first answer only; later send() and fail() calls are ignored', async () => {
    const response = await post('/reply-twice');
    expect(response.status).toBe(201);
    expect(await response.text()).toBe('first:hi');
    await expect.poll(() => server.inFlight(), { timeout: 2000 }).toBe(0);
  });

  it('turns fail() into the error\'s problem response, headers included', async () => {
    const response = await post('/reply-fail');
    expect(response.status).toBe(429);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    expect(response.headers.get('retry-after')).toBe('7');
    expect(await response.json()).toMatchObject({ status: 429, detail: 'spent' });
  });

  it('answers a route that throws synchronously with its problem response', async () => {
    const response = await post('/reply-throws');
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({ status: 422 });
  });
});
