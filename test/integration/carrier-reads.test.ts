// The cache-cold reads of one turn go to a real Redis as one carrier-read.lua call, and each check still gets
// exactly its own carrier's record (or null), in any mix of found and unknown MC numbers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countCommands } from '../../bench/child-stats.js';
import { createRedis } from '../../src/redis/connection.js';
import { EndOfTurn } from '../../src/redis/end-of-turn.js';
import { carrierBucket } from '../../src/store/keys.js';
import { CarrierReads } from '../../src/eligibility/carrier-reads.js';
import { cleanCarrier, startTestApp, type TestApp } from '../helpers/harness.js';
import { freePort } from '../helpers/private-redis.js';

let t: TestApp;
let version: string;
const known = Array.from({ length: 40 }, (_, index) => String(200_001 + index));

beforeAll(async () => {
  t = await startTestApp();
  version = await t.writeSnapshot(known.map((mc) => cleanCarrier(mc)));
});

afterAll(async () => {
  await t.stop();
});

/** One read as a promise: its record, or null; rejects when Redis could not be read. */
const readOne = (reads: CarrierReads, bucket: string, mc: string): Promise<string | null> => new Promise((resolve, reject) => {
  reads.readFor(bucket, mc, { carrierRead: resolve, carrierReadFailed: reject });
});

describe('CarrierReads', () => {
  it('sends one turn\'s reads as one script call and gives each read its own record', async () => {
    const client = createRedis(t.config.REDIS_URL, 'request-path');
    try {
      await new Promise((ready) => client.once('ready', ready));
      // The bench's counter of what a client sends (wraps its sendCommand); take() hands over the counts so far.
      const take = countCommands(client);
      const reads = new CarrierReads(client, new EndOfTurn(client));
      const wanted = [...known.slice(0, 20), '999991', '999992', ...known.slice(20), '999993'];
      const found = await Promise.all(wanted.map((mc) => readOne(reads, t.keys.carrierBucket(version, carrierBucket(mc)), mc)));
      const direct = await Promise.all(wanted.map((mc) => t.redis.hget(t.keys.carrierBucket(version, carrierBucket(mc)), mc)));
      expect(found).toEqual(direct);
      expect(found.filter((record) => record === null)).toHaveLength(3);
      const sent = take();
      expect(sent.hget ?? 0).toBe(0);
      expect((sent.evalsha ?? 0) + (sent.eval ?? 0)).toBe(1);

      // A turn with a single read sends a plain HGET.
      expect(await readOne(reads, t.keys.carrierBucket(version, carrierBucket(known[0] as string)), known[0] as string)).toBe(direct[0]);
      expect(take()).toEqual({ hget: 1 });
    } finally {
      client.disconnect();
    }
  });

  it('tells every waiter of a turn its own record, even when one waiter throws (a bug must not strand the rest)', async () => {
    const client = createRedis(t.config.REDIS_URL, 'request-path');
    try {
      await new Promise((ready) => client.once('ready', ready));
      const reads = new CarrierReads(client, new EndOfTurn(client));
      const told: Array<string | null> = [];
      const wanted = [known[0] as string, '999994', known[1] as string];
      const settled = new Promise<void>((resolve) => {
        reads.readFor(t.keys.carrierBucket(version, carrierBucket(wanted[0] as string)), wanted[0] as string, {
          carrierRead: () => { throw new Error('bug in a waiter'); }, carrierReadFailed: () => undefined,
        });
        for (const mc of wanted.slice(1)) {
          reads.readFor(t.keys.carrierBucket(version, carrierBucket(mc)), mc, {
            carrierRead: (encoded) => {
              told.push(encoded);
              if (told.length === 2) resolve();
            },
            carrierReadFailed: () => undefined,
          });
        }
      });
      await settled;
      const direct = await Promise.all(wanted.slice(1).map((mc) => t.redis.hget(t.keys.carrierBucket(version, carrierBucket(mc)), mc)));
      expect(told).toEqual(direct);
      expect(told[0]).toBeNull();
    } finally {
      client.disconnect();
    }
  });

  it('rejects every read of the turn when Redis cannot be reached (the check then fails closed)', async () => {
    const dead = createRedis(`redis://127.0.0.1:${await freePort()}`, 'request-path', 100);
    try {
      const reads = new CarrierReads(dead, new EndOfTurn(dead));
      const results = await Promise.allSettled(known.slice(0, 3).map((mc) => readOne(reads, t.keys.carrierBucket(version, carrierBucket(mc)), mc)));
      expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected', 'rejected']);
    } finally {
      dead.disconnect();
    }
  });
});
