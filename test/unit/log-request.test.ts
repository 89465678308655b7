// The fixed-shape access line (logRequest) must be the line pino would have written for the same fields, and the
// turn batcher must keep every line and their order.
import { describe, expect, it } from 'vitest';
import { createLogger, logRequest, type Destination } from '../../src/log.js';
import { logCollector as collector } from '../helpers/log-collector.js';

const lines = (text: string) => text.trimEnd().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
const base = { request_id: 'req-1', method: 'POST', path: '/v1/eligibility', status: 200, duration_ms: 0.37, aborted: false };

describe('logRequest', () => {
  it('writes the same line as log.info, field for field and in the same order', () => {
    const destination = collector();
    const log = createLogger('info', 'api', destination);
    const extra = {
      key_id: 'k1', decision_id: 'd"1\n', mc_number: '123', eligible: false, tier: null, reasons: ['carrier_not_found'],
      ruleset_version: 3, data_as_of: null, cache_hit: true, skipped: undefined, ratio: Number.NaN, nested: { a: [1, 'x'] },
    };
    logRequest(log, base, extra);
    log.info({ ...base, ...extra }, 'request');
    log.flush();
    const [fast, slow] = lines(destination.text());
    expect(fast).toBeDefined();
    const { time: fastTime, ...fastRest } = fast as Record<string, unknown>;
    const { time: slowTime, ...slowRest } = slow as Record<string, unknown>;
    expect(typeof fastTime).toBe('string');
    expect(typeof slowTime).toBe('string');
    expect(JSON.stringify(fastRest)).toBe(JSON.stringify(slowRest));
  });

  it('follows the logger\'s level as it changes: no access line below info, lines again once it is back', () => {
    const destination = collector();
    const log = createLogger('info', 'api', destination);
    logRequest(log, { ...base, request_id: 'before' });
    log.level = 'warn';
    logRequest(log, { ...base, request_id: 'muted' });
    log.level = 'debug';
    logRequest(log, { ...base, request_id: 'after' });
    log.flush();
    expect(lines(destination.text()).map((line) => line.request_id)).toEqual(['before', 'after']);
  });

  it('writes pre-rendered members (parts: strings and bytes) as the same fields, also through pino\'s path', () => {
    const destination = collector();
    const log = createLogger('info', 'api', destination);
    const logJson = ',"key_id":"k1","decision_id":"d1","mc_number":"123","eligible":true,"tier":"preferred","reasons":[]'
      + ',"ruleset_version":3,"data_as_of":null,"carrier":"TRANSPORTES ÑANDÚ 🚚","cache_hit":true,"recorded":true';
    const fields = JSON.parse(`{${logJson.slice(1)}}`) as Record<string, unknown>;
    // Cut anywhere between characters (inside JSON strings too): the parts' concatenation is what counts.
    const parts = [Buffer.from(logJson.slice(0, 20)), logJson.slice(20, 60), Buffer.from(logJson.slice(60, 150)), logJson.slice(150)];
    logRequest(log, base, undefined, parts);
    log.info({ ...base, ...fields }, 'request');
    // A child logger is not made by createLogger: it takes pino's path, which must parse the members back.
    logRequest(log.child({}), base, undefined, parts);
    log.flush();
    const [fast, slow, child] = lines(destination.text()).map(({ time: _time, ...rest }) => JSON.stringify(rest));
    expect(fast).toBe(slow);
    expect(child).toBe(slow);
  });

  it('writes the line\'s own fields as pino does: any request id, status, duration and abort flag', () => {
    const destination = collector();
    const log = createLogger('info', 'api', destination);
    const variants = [
      { ...base, request_id: 'id "quoted" \\ and\nbroken', status: 404, duration_ms: 12, aborted: true },
      { ...base, request_id: 'r运送', method: 'GET', path: '/v1/decisions/ü', status: 500, duration_ms: 0.07 },
      { ...base, duration_ms: 0.375 },
      { ...base, duration_ms: Number.NaN },
      { ...base, duration_ms: 123_456.5, status: 429 },
    ];
    for (const line of variants) {
      logRequest(log, line, { key_id: 'k1' });
      log.info({ ...line, key_id: 'k1' }, 'request');
    }
    log.flush();
    const written = lines(destination.text()).map(({ time: _time, ...rest }) => JSON.stringify(rest));
    expect(written).toHaveLength(variants.length * 2);
    for (let index = 0; index < written.length; index += 2) expect(written[index]).toBe(written[index + 1]);
  });

  it('censors through pino when an extra field is a secret, and honours the level', () => {
    const destination = collector();
    const log = createLogger('info', 'api', destination);
    logRequest(log, base, { api_key: 'cek_secret' });
    logRequest(log, { ...base, status: 404 }, { status: 999 });
    const quiet = createLogger('warn', 'api', destination);
    logRequest(quiet, base, { key_id: 'never' });
    log.flush();
    const written = lines(destination.text());
    expect(written).toHaveLength(2);
    expect(written[0]?.api_key).toBe('[redacted]');
    expect(destination.text()).not.toContain('cek_secret');
    expect(written[1]?.status).toBe(999);
  });

  it('keeps order across pino lines and access lines written in one turn', async () => {
    const destination = collector();
    const log = createLogger('info', 'api', destination);
    for (let index = 0; index < 500; index += 1) {
      if (index % 3 === 0) log.info({ index }, 'other');
      else logRequest(log, { ...base, request_id: `r${index}` }, { index });
    }
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines(destination.text()).map((line) => line.index)).toEqual(Array.from({ length: 500 }, (_, index) => index));
  });

  it('writes non-ASCII text and lines longer than the batch buffer whole, in order, never a chunk it reuses', async () => {
    const chunks: Buffer[] = [];
    const asWritten: string[] = [];
    const destination: Destination = {
      write(chunk) {
        chunks.push(chunk);
        asWritten.push(chunk.toString('utf8'));
        return true;
      },
      flush(callback) {
        callback?.();
      },
      flushSync() {},
    };
    const log = createLogger('info', 'api', destination);
    const name = 'TRANSPORTES ÑANDÚ — 運送 🚚';
    const huge = 'x'.repeat(40_000);
    for (let index = 0; index < 300; index += 1) {
      if (index === 150) log.info({ index, huge }, 'huge');
      // An access line too long for the batch buffer goes out whole too, through the string path.
      else if (index === 200) logRequest(log, { ...base, request_id: `r${index}` }, { index, name, huge });
      else logRequest(log, { ...base, request_id: `r${index}` }, { index, name });
    }
    await new Promise((resolve) => setImmediate(resolve));
    const text = Buffer.concat(chunks).toString('utf8');
    const written = lines(text);
    expect(written.map((line) => line.index)).toEqual(Array.from({ length: 300 }, (_, index) => index));
    expect(written.filter((line) => line.index !== 150).every((line) => line.name === name)).toBe(true);
    expect(written[150]?.huge).toBe(huge);
    expect(written[200]).toMatchObject({ request_id: 'r200', huge, name, msg: 'request' });
    // Each chunk handed over is its own memory: later writes never change what the destination already holds.
    expect(chunks.length).toBeGreaterThan(2);
    expect(chunks.map((chunk) => chunk.toString('utf8'))).toEqual(asWritten);
  });
});
