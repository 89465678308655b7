// sendFlat / sendFlatScript (src/redis/flat-command.ts) against a private Redis: the same replies as ioredis'
// own methods, errors as rejections, a script that Redis forgot is loaded again, and a command Redis does not
// answer still times out (ioredis' command timeout applies to a command built this way too).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { createRedis } from '../../src/redis/connection.js';
import { flatScript, sendFlat, sendFlatScript } from '../../src/redis/flat-command.js';
import { sendKeyed } from '../../src/redis/keyed-batch.js';
import { PrivateRedis } from '../helpers/private-redis.js';

let server: PrivateRedis;
let client: Redis;

beforeAll(async () => {
  server = await PrivateRedis.start();
  // The request-path client has no offline queue: commands only once it is connected.
  client = createRedis(server.url, 'request-path', 300) as Redis;
  await new Promise((ready) => client.once('ready', ready));
});

afterAll(async () => {
  client.disconnect();
  await server.stop();
});

describe('sendFlat', () => {
  it('writes and reads what ioredis\' own methods write and read, multi-byte text included', async () => {
    const fields = ['a', 'plain', 'b', 'Ünïcødé ✓ 🚚', 'c', ''];
    expect(await sendFlat(client, 'hset', ['flat:h', ...fields])).toBe(3);
    expect(await client.hgetall('flat:h')).toEqual({ a: 'plain', b: 'Ünïcødé ✓ 🚚', c: '' });
    expect(await sendFlat(client, 'hget', ['flat:h', 'b'])).toBe('Ünïcødé ✓ 🚚');
    expect(await sendFlat(client, 'hget', ['flat:h', 'missing'])).toBeNull();
    expect(await sendFlat(client, 'hmget', ['flat:h', 'a', 'missing'])).toEqual(['plain', null]);
  });

  it('rejects with Redis\' error', async () => {
    await client.set('flat:s', 'x');
    await expect(sendFlat(client, 'hset', ['flat:s', 'f', 'v'])).rejects.toThrow(/WRONGTYPE/);
  });

  it('sendKeyed gives the same replies through it, numbers turned into their decimal text', async () => {
    const replies = await sendKeyed(client, [['set', 'flat:n', 42, 'EX', 60], ['incrby', 'flat:n', 8], ['ttl', 'flat:n']], { corked: true });
    expect(replies.slice(0, 2)).toEqual(['OK', 50]);
    expect(replies[2]).toBeGreaterThan(55);
  });
});

describe('sendFlatScript', () => {
  const script = flatScript("return {KEYS[1], ARGV[1], redis.call('GET', KEYS[1])}");

  it('runs the script by its SHA, and loads it again after Redis forgot it (NOSCRIPT)', async () => {
    await client.set('flat:k', 'value');
    await client.script('FLUSH');
    expect(await sendFlatScript(client, script, ['1', 'flat:k', 'arg'])).toEqual(['flat:k', 'arg', 'value']);
    expect(await client.script('EXISTS', script.sha)).toEqual([1]);
    expect(await sendFlatScript(client, script, ['1', 'flat:k', 'again'])).toEqual(['flat:k', 'again', 'value']);
  });

  it('rejects a script error instead of retrying it', async () => {
    const broken = flatScript("return redis.call('HGET', KEYS[1], ARGV[1])");
    await expect(sendFlatScript(client, broken, ['1', 'flat:k', 'f'])).rejects.toThrow(/WRONGTYPE/);
  });

  it('times out like any ioredis command when Redis does not answer', async () => {
    server.pause();
    try {
      const started = Date.now();
      await expect(sendFlat(client, 'get', ['flat:k'])).rejects.toThrow(/timed out/i);
      expect(Date.now() - started).toBeLessThan(2_000);
    } finally {
      server.resume();
    }
  });
});
