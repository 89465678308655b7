// The uWS adapter on its own: request bodies kept intact past the callback that delivered them, streaming with a
// failure midway, and a client that leaves mid-stream.
import { createHash, randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.js';
import { startHttpServer } from '../../src/http/server.js';
import type { HttpServer } from '../../src/http/types.js';
import { testEngine } from '../helpers/harness.js';
import { createLogger } from '../../src/log.js';
import { RequestDurations } from '../../src/metrics.js';

let server: HttpServer;
let produced = 0;
const durations = new RequestDurations();

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
    // A pre-joined header block (the eligibility route's form): the status and one header taken from the request.
    { method: 'POST', pattern: '/head', maxBodyBytes: 64, headers: ['x-n'], handler: async (request) => {
      const n = Number(request.headers['x-n']);
      return { status: n % 3 === 0 ? 429 : 200, headBlock: `content-type: application/json\r\nx-n: ${n}`, text: `{"n":${n}}` };
    } },
    { method: 'GET', pattern: '/endless', maxBodyBytes: 0, handler: async () => ({ status: 200, headers: { 'content-type': 'text/csv' }, stream: endlessStream() }) },
    // Continuation form (Route.handle, the eligibility route's).
    { method: 'POST', pattern: '/reply', maxBodyBytes: 64, headers: ['x-mode'], handle: (request, reply) => {
      const mode = request.headers['x-mode'];
      if (mode === 'throw') throw new AppError('validation_failed', 'thrown before any answer');
      if (mode === 'twice') {
        // A route bug answering twice: the first answer wins, the second must not touch the finished response.
        reply.send({ status: 200, text: '{"answer":1}' });
        reply.send({ status: 200, text: '{"answer":2}' });
        reply.fail(new Error('late failure'));
        return;
      }
      // Answered a turn later, after uWS has long returned from the request callback.
      setTimeout(() => reply.send({ status: 200, text: `{"body":${request.body.toString()}}` }), 5);
    } },
  ], { host: '127.0.0.1', port: 0, log: createLogger('silent', 'test'), durations, engine: testEngine() });
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

describe('uWS adapter request durations', () => {
  it('counts every answer under its route, unmatched paths together, in the bucket of the time it took', async () => {
    const series = (text: string, name: string, labels: string) => {
      const line = text.split('\n').find((candidate) => candidate.startsWith(`${name}{${labels}} `));
      return line === undefined ? Number.NaN : Number(line.slice(line.lastIndexOf(' ') + 1));
    };
    const digest = 'method="POST",route="/digest"';
    const unmatched = 'method="any",route="unmatched"';
    const before = durations.exposition();
    const countBefore = (labels: string) => series(before, 'ce_http_request_duration_seconds_count', labels) || 0;
    // /digest answers after a 20-ms timer: never within 10 ms.
    await Promise.all([1, 2, 3].map(() => fetch(`http://127.0.0.1:${server.port}/digest`, { method: 'POST', body: 'x' })));
    expect((await fetch(`http://127.0.0.1:${server.port}/nowhere/${randomBytes(4).toString('hex')}`)).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${server.port}/digest`)).status).toBe(405);
    const after = durations.exposition();
    expect(series(after, 'ce_http_request_duration_seconds_count', digest) - countBefore(digest)).toBe(3);
    expect(series(after, 'ce_http_request_duration_seconds_count', unmatched) - countBefore(unmatched)).toBe(2);
    expect(series(after, 'ce_http_request_duration_seconds_bucket', `${digest},le="0.01"`)).toBe(0);
    expect(series(after, 'ce_http_request_duration_seconds_bucket', `${digest},le="+Inf"`))
      .toBe(series(after, 'ce_http_request_duration_seconds_count', digest));
    expect(series(after, 'ce_http_request_duration_seconds_sum', digest)).toBeGreaterThanOrEqual(3 * 0.019);
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

  it('writes a header block response whole for request ids of every length, interleaved with other blocks and statuses', async () => {
    // The head is written as bytes into one reused buffer (and one reused view per length): concurrent responses
    // with different ids, blocks and statuses must each carry their own.
    const ids = Array.from({ length: 60 }, (_, index) => (index % 10 === 9 ? null : `id-${'x'.repeat((index * 7) % 124)}`));
    ids.push('a'.repeat(128), 'has space', 'has/slash', 'b'.repeat(129));
    const answers = await Promise.all(ids.map(async (id, n) => {
      const response = await fetch(`http://127.0.0.1:${server.port}/head`, {
        method: 'POST', body: '{}', headers: { 'x-n': String(n), ...(id === null ? {} : { 'x-request-id': id }) },
      });
      return { n, id, status: response.status, requestId: response.headers.get('x-request-id'), xn: response.headers.get('x-n'),
        type: response.headers.get('content-type'), body: await response.json() as unknown };
    }));
    for (const answer of answers) {
      expect(answer.status).toBe(answer.n % 3 === 0 ? 429 : 200);
      expect(answer.xn).toBe(String(answer.n));
      expect(answer.type).toBe('application/json');
      expect(answer.body).toEqual({ n: answer.n });
      const sentValid = answer.id !== null && /^[A-Za-z0-9._:-]{1,128}$/.test(answer.id);
      if (sentValid) expect(answer.requestId).toBe(answer.id);
      else expect(answer.requestId).toMatch(/^r[A-Za-z0-9_-]{8}\.[0-9a-z]+$/);
    }
    const raw = await rawExchange('POST /head HTTP/1.1\r\nhost: x\r\nx-request-id: raw-1\r\nx-n: 4\r\ncontent-length: 2\r\n\r\n{}');
    expect(raw).toMatch(/^HTTP\/1\.1 200 OK\r\nx-request-id: raw-1\r\ncontent-type: application\/json\r\nx-n: 4\r\n/);
  });

  it('answers 413 from the declared content-length alone, before any body arrives', async () => {
    const answer = await rawExchange('POST /echo-key HTTP/1.1\r\nhost: x\r\nx-request-id: big-1\r\ncontent-length: 5000\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toMatch(/x-request-id: big-1/i);
    expect(answer).toContain('payload_too_large');
  });
});

describe('uWS adapter routes in continuation form (Route.handle)', () => {
  const post = (mode: string, body = '{"n":1}') => fetch(`http://127.0.0.1:${server.port}/reply`, {
    method: 'POST', headers: { 'x-mode': mode, 'content-type': 'application/json' }, body,
  });

  it('answers through the reply, later than the request callback, many at once', async () => {
    const answers = await Promise.all(Array.from({ length: 30 }, (_, index) => post('later', `{"n":${index}}`)
      .then(async (response) => [response.status, await response.text()])));
    expect(answers).toEqual(Array.from({ length: 30 }, (_, index) => [200, `{"body":{"n":${index}}}`]));
  });

  it('keeps the first answer when a route answers twice, and the server goes on serving', async () => {
    const response = await post('twice');
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('{"answer":1}');
    expect((await post('later')).status).toBe(200);
    // One exit per request: a second finish would have counted the request out twice.
    expect(server.inFlight()).toBe(0);
  });

  it('answers a handle that throws with the error\'s problem response', async () => {
    const response = await post('throw');
    expect(response.status).toBe(422);
    expect(response.headers.get('content-type')).toContain('application/problem+json');
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
