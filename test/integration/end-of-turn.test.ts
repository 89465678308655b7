// EndOfTurn against a real Redis connection: the sends handed over in one turn run together at its end, on a
// corked socket (one write), in order; a failing send does not stop the others; replies come back to each caller.
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RedisClient } from '../../src/redis/connection.js';
import { deleteByPrefix } from '../../src/redis/delete-by-prefix.js';
import { EndOfTurn } from '../../src/redis/end-of-turn.js';
import { connectedRequestPathClient, randomPrefix } from '../helpers/harness.js';

let redis: RedisClient;
const prefix = randomPrefix();

beforeAll(async () => {
  redis = await connectedRequestPathClient();
});

afterAll(async () => {
  await deleteByPrefix(redis, prefix);
  redis.disconnect();
});

describe('EndOfTurn', () => {
  it('runs a turn\'s sends after the turn, in order, with the socket corked, and each gets its reply', async () => {
    const endOfTurn = new EndOfTurn(redis);
    const socket = (redis as unknown as { stream: Socket }).stream;
    const ran: string[] = [];
    const corked: number[] = [];
    const replies: Array<Promise<unknown>> = [];
    for (const name of ['a', 'b', 'c']) {
      endOfTurn.atEnd(() => {
        ran.push(name);
        corked.push(socket.writableCorked);
        replies.push(redis.set(`${prefix}${name}`, name).then(() => redis.get(`${prefix}${name}`)));
      });
    }
    expect(ran).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(ran).toEqual(['a', 'b', 'c']);
    expect(corked).toEqual([1, 1, 1]);
    expect(socket.writableCorked).toBe(0);
    expect(await Promise.all(replies)).toEqual(['a', 'b', 'c']);
  });

  it('keeps running the other sends when one throws, and starts a new turn afterwards', async () => {
    const endOfTurn = new EndOfTurn(redis);
    const ran: string[] = [];
    endOfTurn.atEnd(() => ran.push('first'));
    endOfTurn.atEnd(() => {
      throw new Error('boom');
    });
    endOfTurn.atEnd(() => ran.push('third'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(ran).toEqual(['first', 'third']);
    const next = new Promise<string | null>((resolve, reject) => {
      endOfTurn.atEnd(() => {
        redis.get(`${prefix}a`).then(resolve, reject);
      });
    });
    expect(await next).toBe('a');
  });
});
