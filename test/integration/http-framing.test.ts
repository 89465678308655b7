// Request framing on raw sockets (node:net), against the real service on the engine under test (HTTP_ENGINE,
// see testEngine): no request smuggling, no silent hang, pipelined requests answered in order, HEAD without a
// body, and the in-flight count right after a client leaves mid-body. Where uWebSockets.js' own parser decides
// and cannot be made to answer, the case is skipped on the uws engine with the reason (docs/http.md says the same).
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanCarrier, startTestApp, testEngine, type TestApp } from '../helpers/harness.js';

let t: TestApp;
let key: string;
const engine = testEngine();
const onUws = engine === 'uws';
/** Why a case is skipped on the uws engine: uWS' parser holds the connection until its 10 s idle timeout. */
const UWS_HOLDS = 'uWS holds such a request without an answer (docs/http.md)';

beforeAll(async () => {
  t = await startTestApp();
  await t.publishRules();
  await t.writeSnapshot([cleanCarrier('123456')]);
  ({ key } = await t.createKey());
});

afterAll(async () => {
  await t.stop();
});

interface Exchange {
  /** Everything the server sent. */
  text: string;
  /** The status codes of every response, in order. */
  statuses: number[];
  /** True when the server closed the connection within the wait. */
  closed: boolean;
}

/**
 * Sends `payload` on a fresh connection; collects what comes back until the server closes, `answers` whole
 * responses have arrived, or `waitMs` pass.
 */
function raw(payload: string | Buffer, waitMs = 2000, answers = Infinity): Promise<Exchange> {
  return new Promise((resolve) => {
    const socket = connect(Number(new URL(t.baseUrl).port), '127.0.0.1');
    let text = '';
    const finish = (closed: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      const statuses = [...text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((found) => Number(found[1]));
      resolve({ text, statuses, closed });
    };
    const timer = setTimeout(() => finish(false), waitMs);
    socket.on('data', (chunk) => {
      text += chunk.toString('latin1');
      // Every answer here is JSON or empty: a response is whole once the next status line or a closing brace follows.
      if ([...text.matchAll(/HTTP\/1\.1 \d{3} /g)].length >= answers && /(\}|content-length: 0\r\n\r\n)$/i.test(text)) finish(false);
    });
    socket.on('error', () => undefined);
    socket.on('close', () => finish(true));
    socket.write(payload);
  });
}

const check = (mc = '123456') => {
  const body = JSON.stringify({ mc_number: mc });
  return { body, head: `POST /v1/eligibility HTTP/1.1\r\nHost: x\r\nx-api-key: ${key}\r\ncontent-type: application/json\r\n` };
};

describe(`request framing on the ${engine} engine`, () => {
  it.skipIf(onUws)('refuses two different Content-Length values with 400 and closes, deciding nothing', async () => {
    const { body, head } = check();
    const answer = await raw(`${head}Content-Length: ${body.length}\r\nContent-Length: ${body.length + 5}\r\n\r\n${body}abcde`);
    expect(answer.statuses).toEqual([400]);
    expect(answer.closed).toBe(true);
  });

  it.skipIf(onUws)('refuses Content-Length with Transfer-Encoding with 400 and closes', async () => {
    const { body, head } = check();
    const chunked = `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`;
    const answer = await raw(`${head}Content-Length: ${chunked.length}\r\nTransfer-Encoding: chunked\r\n\r\n${chunked}`);
    expect(answer.statuses).toEqual([400]);
    expect(answer.closed).toBe(true);
  });

  it.skipIf(onUws)('refuses an obs-fold header line and a bare-LF line with 400 and closes', async () => {
    for (const payload of [
      'GET /v1/health HTTP/1.1\r\nHost: x\r\nX-A: a\r\n  folded\r\n\r\n',
      'GET /v1/health HTTP/1.1\r\nHost: x\nX-A: a\r\n\r\n',
    ]) {
      const answer = await raw(payload);
      expect(answer.statuses, JSON.stringify(payload)).toEqual([400]);
      expect(answer.closed).toBe(true);
    }
  });

  it.skipIf(onUws)('answers malformed or unsupported heads with their RFC 9112 status and closes', async () => {
    const cases: [string, number][] = [
      ['GET /v1/health HTTP/1.0\r\nHost: x\r\n\r\n', 505],
      ['GET /v1/health HTTP/2.0\r\nHost: x\r\n\r\n', 505],
      ['GET /v1/health HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n', 400],
      [`GET /v1/health HTTP/1.1\r\nHost: x\r\n${Array.from({ length: 49 }, (_, index) => `x-h${index}: a\r\n`).join('')}\r\n`, 431],
      [`GET /v1/health HTTP/1.1\r\nHost: x\r\n${Array.from({ length: 100 }, (_, index) => `x-h${index}: a\r\n`).join('')}\r\n`, 431],
      [`GET /v1/health HTTP/1.1\r\nHost: x\r\nx-big: ${'a'.repeat(128 * 1024)}\r\n\r\n`, 431],
      [`GET /v1/health?${'a'.repeat(10 * 1024)} HTTP/1.1\r\nHost: x\r\n\r\n`, 414],
    ];
    for (const [payload, status] of cases) {
      const answer = await raw(payload);
      expect(answer.statuses, payload.slice(0, 60)).toEqual([status]);
      expect(answer.closed).toBe(true);
    }
  });

  it.skipIf(onUws)('answers two pipelined checks in one packet, in order', async () => {
    const first = check('123456');
    const second = check('999999');
    const one = (request: ReturnType<typeof check>, id: string) => `${request.head}x-request-id: ${id}\r\nContent-Length: ${request.body.length}\r\n\r\n${request.body}`;
    const answer = await raw(one(first, 'pipe-1') + one(second, 'pipe-2'), 1500, 2);
    expect(answer.statuses).toEqual([200, 200]);
    expect(answer.text.indexOf('x-request-id: pipe-1')).toBeLessThan(answer.text.indexOf('x-request-id: pipe-2'));
    expect(answer.text).toContain('"eligible":true');
    expect(answer.text).toContain('"eligible":false');
  });

  it.skipIf(onUws)('answers a check pipelined before a malformed request, then refuses that one and closes', async () => {
    const { body, head } = check();
    const answer = await raw(`${head}Content-Length: ${body.length}\r\n\r\n${body}GET /v1/health HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n`);
    expect(answer.statuses).toEqual([200, 400]);
    expect(answer.text).toContain('"eligible":true');
    expect(answer.closed).toBe(true);
  });

  it('answers pipelined health reads in order', async () => {
    const requests = Array.from({ length: 10 }, (_, index) => `GET /v1/health HTTP/1.1\r\nHost: x\r\nx-request-id: h-${index}\r\n\r\n`).join('');
    const answer = await raw(requests, 1500, 10);
    expect(answer.statuses).toEqual(Array(10).fill(200));
    const order = [...answer.text.matchAll(/x-request-id: (h-\d+)/g)].map((found) => found[1]);
    expect(order).toEqual(Array.from({ length: 10 }, (_, index) => `h-${index}`));
  });

  it('answers HEAD with 405, Allow and no body, and keeps the connection usable', async () => {
    const answer = await raw('HEAD /v1/health HTTP/1.1\r\nHost: x\r\n\r\nGET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n', 1500, 2);
    expect(answer.statuses).toEqual([405, 200]);
    const [headHead, rest] = answer.text.split('\r\n\r\n');
    expect(headHead).toMatch(/\r\nallow: GET\r\n/i);
    expect(headHead).toMatch(/\r\ncontent-length: 0(\r\n|$)/i);
    // Nothing between the HEAD answer's head and the next status line: no body was sent.
    expect(rest?.startsWith('HTTP/1.1 200 ')).toBe(true);
  });

  it('counts a request whose client left mid-body as finished', async () => {
    const { body, head } = check();
    await new Promise<void>((resolve) => {
      const socket = connect(Number(new URL(t.baseUrl).port), '127.0.0.1', () => {
        socket.write(`${head}Content-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`, () => {
          setTimeout(() => {
            socket.destroy();
            resolve();
          }, 50);
        });
      });
    });
    await expect.poll(() => t.app.http?.inFlight(), { timeout: 2000, interval: 10 }).toBe(0);
  });
});

describe.skipIf(!onUws)('what the uws engine cannot answer (documented)', () => {
  it('holds a request whose head its parser cannot take', async () => {
    // Recorded so a uWS upgrade that starts answering is noticed and docs/http.md updated: no status line.
    const answer = await raw('GET /v1/health HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n', 300);
    expect(answer.statuses).toEqual([]);
    expect(UWS_HOLDS).toContain('docs/http.md');
  });
});
