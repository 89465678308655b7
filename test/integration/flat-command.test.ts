// sendFlat / sendFlatScript (src/redis/flat-command.ts) and RespCommandWriter (src/redis/resp-command.ts) against a
// private Redis: the same replies as ioredis' own methods, errors as rejections, a script that Redis forgot is
// loaded again, and a command Redis does not answer still times out (ioredis' command timeout applies to a command
// built this way too).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { createRedis } from '../../src/redis/connection.js';
import { flatScript, sendFlat, sendFlatScript } from '../../src/redis/flat-command.js';
import { sendKeyed } from '../../src/redis/keyed-batch.js';
import { RespCommandWriter } from '../../src/redis/resp-command.js';
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

describe('RespCommandWriter', () => {
  it('sends an HSET written in pieces that Redis stores exactly, large and multi-byte arguments included', async () => {
    const writer = new RespCommandWriter('hset', 'resp:h', 64);
    const expected: Record<string, string> = {};
    for (let index = 0; index < 120; index += 1) {
      const value = index === 7 ? 'é'.repeat(5_000) : `[1,${JSON.stringify(`ref "${index}" 🚚`)},${index}]`;
      writer.arg(`f${index}`);
      writer.open();
      writer.bytes(Buffer.from('[1,'));
      if (index === 7) writer.text(value.slice(3)); else writer.jsonString(`ref "${index}" 🚚`);
      if (index !== 7) writer.text(`,${index}]`);
      writer.close();
      expected[`f${index}`] = index === 7 ? `[1,${value.slice(3)}` : value;
    }
    expect(await writer.send(client)).toBe(120);
    expect(await client.hgetall('resp:h')).toEqual(expected);
  });

  it('rejects with Redis\' error, and times out when Redis does not answer', async () => {
    await client.set('resp:s', 'x');
    const wrong = new RespCommandWriter('hset', 'resp:s');
    wrong.arg('f');
    wrong.arg('v');
    await expect(wrong.send(client)).rejects.toThrow(/WRONGTYPE/);
    server.pause();
    try {
      const paused = new RespCommandWriter('hset', 'resp:p');
      paused.arg('f');
      paused.arg('v');
      const started = Date.now();
      await expect(paused.send(client)).rejects.toThrow(/timed out/i);
      expect(Date.now() - started).toBeLessThan(2_000);
    } finally {
      server.resume();
    }
  });
});
