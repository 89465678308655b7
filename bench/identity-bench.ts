// Identity history cost at census scale: drives the ingest's identity path (IdentityRecorder: observe in 512-row
// chunks, the shared-contact index, commit) over N synthetic carriers with full contact data, twice: a first census
// (every carrier new) and a second one in which --change-rate of them changed phone, email or address. Reports wall
// time per pass and Redis bytes per carrier (used_memory deltas and MEMORY USAGE of the index buckets).
//   node --import tsx bench/identity-bench.ts [--carriers 1000000] [--change-rate 0.015]
// The machine is shared: the load average is printed next to the times; the byte figures do not depend on it.
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config.js';
import type { IdentityValues } from '../src/core/identity.js';
import { identityKeys, IdentityRecorder } from '../src/identity/index.js';
import type { IdentityObservation } from '../src/ingest/identity-sink.js';
import { createRedis, redisTarget } from '../src/redis/connection.js';
import { deleteByPrefix } from '../src/redis/delete-by-prefix.js';
import { redisKeys, SHARED_CONTACT_BUCKETS } from '../src/store/keys.js';

const { values } = parseArgs({ options: { carriers: { type: 'string', default: '1000000' }, 'change-rate': { type: 'string', default: '0.015' } } });
const carriers = Number(values.carriers);
const changeRate = Number(values['change-rate']);
const redis = createRedis(redisTarget(loadConfig({ REDIS_URL: process.env.REDIS_URL })), 'background');
const prefix = `bench-identity:${Date.now().toString(36)}:`;
const keys = redisKeys(prefix);
const ikeys = identityKeys(prefix);
const usedMemory = async () => Number(/used_memory:(\d+)/.exec(await redis.info('memory'))?.[1]);

/** Census-like identity: 10-digit phones (2% share one in groups of 5), a third with a cell phone, ~70% with email. */
function identity(i: number, changed: boolean): IdentityValues {
  const phone = i % 50 === 0 ? String(6025550000 + Math.floor(i / 250)) : String(2000000000 + ((i * 7919) % 7_999_999_999));
  return {
    legal_name: `CARRIER ${i} TRUCKING LLC`, dba_name: i % 5 === 0 ? `FAST ${i} FREIGHT` : '',
    phone: changed ? String(9000000000 + i) : phone, cell_phone: i % 3 === 0 ? String(3000000000 + i) : '',
    email: i % 10 < 7 ? `dispatch${i}@carrier${i % 99_991}.example` : '',
    physical_address: `${(i % 9999) + 1} ${changed && i % 2 === 0 ? 'NEW' : 'MAIN'} ST, CITY ${i % 3000}, TX, ${70000 + (i % 20000)}, US`,
    mailing_address: i % 4 === 0 ? `PO BOX ${i}, CITY ${i % 3000}, TX, ${70000 + (i % 20000)}, US` : '',
    officers: `JOHN DOE ${i}`,
  };
}

async function pass(label: string, version: string, nowMs: number, changedEvery: number): Promise<void> {
  const recorder = new IdentityRecorder(redis, ikeys);
  const before = await usedMemory();
  const cpu = process.cpuUsage();
  const started = performance.now();
  let chunk: IdentityObservation[] = [];
  let signals = 0;
  for (let i = 1; i <= carriers; i++) {
    chunk.push({ dot: 1_000_000 + i, identity: identity(i, changedEvery > 0 && i % changedEvery === 0), active: true, mcs: [i] });
    if (chunk.length === 512 || i === carriers) {
      signals += (await recorder.observe(chunk, nowMs)).size;
      chunk = [];
    }
  }
  const observed = performance.now();
  const shared = await recorder.shareIndex(version, keys);
  const indexed = performance.now();
  const committed = await recorder.commit({ version, asOf: new Date(nowMs).toISOString().slice(0, 10) });
  const done = performance.now();
  const spent = process.cpuUsage(cpu);
  const after = await usedMemory();
  let indexBytes = 0;
  for (let bucket = 0; bucket < SHARED_CONTACT_BUCKETS; bucket++) indexBytes += Number(await redis.memory('USAGE', keys.sharedContacts(version, bucket)) ?? 0);
  process.stdout.write(`${JSON.stringify({
    pass: label, carriers, load_1m: Number((loadavg()[0] ?? 0).toFixed(1)),
    observe_s: Number(((observed - started) / 1000).toFixed(1)), share_index_s: Number(((indexed - observed) / 1000).toFixed(1)),
    commit_s: Number(((done - indexed) / 1000).toFixed(1)), total_s: Number(((done - started) / 1000).toFixed(1)),
    cpu_s: Number(((spent.user + spent.system) / 1e6).toFixed(1)),
    redis_bytes_added_per_carrier: Number(((after - before) / carriers).toFixed(1)),
    index_bytes_per_carrier: Number((indexBytes / carriers).toFixed(1)), index_stats: recorder.sharedStats,
    carriers_with_shared_facts: shared.size, carriers_with_signals: signals, recorded: committed,
  })}\n`);
}

try {
  // As the ingest does (src/ingest/run.ts): lines up to 256 bytes stay in listpack-encoded hashes.
  process.stdout.write(`${JSON.stringify({ listpack: { value: await redis.config('GET', 'hash-max-listpack-value'), entries: await redis.config('GET', 'hash-max-listpack-entries') } })}\n`);
  const day = 86_400_000;
  await pass('first census (all new)', 'v1bench', Date.now() - day, 0);
  await pass(`second census (${changeRate * 100}% changed)`, 'v2bench', Date.now(), Math.round(1 / changeRate));
  const streamBytes = Number(await redis.memory('USAGE', ikeys.changes) ?? 0);
  process.stdout.write(`${JSON.stringify({ change_stream_bytes: streamBytes, per_changed_carrier: Number((streamBytes / Math.max(1, Math.round(carriers * changeRate))).toFixed(1)) })}\n`);
} finally {
  await deleteByPrefix(redis, prefix);
  redis.disconnect();
}
