// One archiver pass in a child process that SIGKILLs itself at a chosen point, for the archiver crash test
// (test/integration/decisions-archiver-crash.test.ts). The pass is the one `decisions archive
// --evict-older-than 0s` runs (archive up to now, then evict everything archived); the kill is a real SIGKILL,
// sent by the process to itself so it lands exactly at the chosen step:
//   ARCHIVER_KILL=put:N      right after the N-th object this pass writes to the store is durable
//   ARCHIVER_KILL=evict      after a segment's Redis buckets are evicted, before the eviction cursor moves
//   ARCHIVER_KILL=none       the pass completes
// Environment: REDIS_URL, REDIS_PREFIX, ARCHIVE_DIR, DECISION_SIGNING_KEY.
import { DecisionArchiver, secondOf } from '../../src/decisions/archiver.js';
import { parseLegalHold } from '../../src/decisions/legal-hold.js';
import { parseSigningKey } from '../../src/decisions/archive.js';
import { LocalArchiveStore, type ArchiveStore } from '../../src/decisions/archive-store.js';
import { createRedis } from '../../src/redis/connection.js';
import { redisKeys } from '../../src/store/keys.js';

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};

const kill = process.env.ARCHIVER_KILL ?? 'none';
const die = (): Promise<never> => {
  process.stdout.write(`killed at ${kill}\n`);
  process.kill(process.pid, 'SIGKILL');
  return new Promise<never>(() => undefined);
};

const inner = new LocalArchiveStore(env('ARCHIVE_DIR'));
let puts = 0;
const store: ArchiveStore = {
  description: inner.description,
  async put(key, body, options) {
    const written = await inner.put(key, body, options);
    puts += 1;
    if (kill === `put:${puts}`) await die();
    return written;
  },
  get: (key) => inner.get(key),
  getRange: (key, offset, length) => inner.getRange(key, offset, length),
  list: (prefix) => inner.list(prefix),
  delete: (key) => inner.delete(key),
};

const keys = redisKeys(env('REDIS_PREFIX'));
const redis = createRedis(env('REDIS_URL'), 'background');
if (kill === 'evict') {
  // The eviction cursor is the only plain SET the archiver sends: die just before it.
  const set = redis.set.bind(redis);
  Object.assign(redis, {
    set: async (key: string, value: string) => (key === keys.decisionEvictedSeq ? die() : set(key, value)),
  });
}
const archiver = new DecisionArchiver(redis, keys, store, parseSigningKey(env('DECISION_SIGNING_KEY')), {
  retentionSeconds: 0, archiveYears: 10, legalHold: parseLegalHold(''),
});
const until = secondOf(Date.now()) + 1;
const pass = await archiver.archiveUntil(until);
const evicted = await archiver.evictBefore(until);
process.stdout.write(`${JSON.stringify({ ...pass, ...evicted, puts })}\n`);
redis.disconnect();
