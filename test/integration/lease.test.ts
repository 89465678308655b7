// The lease scripts the monitoring detector and the webhook delivery hold their leases with, against a real Redis:
// renewal and release act only for the token that holds the lease, in one step, so a worker that lost its lease
// (it lapsed and another worker took it) can neither extend nor delete the other's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RedisClient } from '../../src/redis/connection.js';
import { deleteByPrefix } from '../../src/redis/delete-by-prefix.js';
import { luaScripts } from '../../src/redis/scripts.js';
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

describe('lease scripts', () => {
  it('renews the lease for its holder only, and sets the new length', async () => {
    const lease = `${prefix}lease:renew`;
    await redis.set(lease, 'mine', 'PX', 1000);
    expect(await luaScripts.leaseRenew(redis, lease, 'mine', 60_000)).toBe(true);
    expect(await redis.pttl(lease)).toBeGreaterThan(1000);

    await redis.set(lease, 'theirs', 'PX', 1000);
    expect(await luaScripts.leaseRenew(redis, lease, 'mine', 60_000)).toBe(false);
    expect(await redis.pttl(lease)).toBeLessThanOrEqual(1000);
    expect(await redis.get(lease)).toBe('theirs');
  });

  it('renews no lease that has lapsed, and creates none', async () => {
    const lease = `${prefix}lease:gone`;
    expect(await luaScripts.leaseRenew(redis, lease, 'mine', 60_000)).toBe(false);
    expect(await redis.exists(lease)).toBe(0);
  });

  it('releases the lease for its holder only', async () => {
    const lease = `${prefix}lease:release`;
    await redis.set(lease, 'theirs', 'PX', 60_000);
    expect(await luaScripts.leaseRelease(redis, lease, 'mine')).toBe(false);
    expect(await redis.get(lease)).toBe('theirs');
    await redis.set(lease, 'mine', 'PX', 60_000);
    expect(await luaScripts.leaseRelease(redis, lease, 'mine')).toBe(true);
    expect(await redis.exists(lease)).toBe(0);
  });
});
