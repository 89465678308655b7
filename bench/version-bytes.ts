// Redis bytes per carrier of one snapshot version, and what decides it: the buckets' encoding. A bucket (a hash of
// the carriers whose MC number falls in it) stays a compact listpack only while every record is at most
// hash-max-listpack-value (256) bytes; one longer record turns the whole bucket into a hashtable.
//
//   node --import tsx bench/version-bytes.ts [--carriers 200000] [--real-lists] [--scale 10]
//
// Runs the real CLI ingest of synthetic files (generated once into .bench-out/synthetic-<N>; --real-lists screens
// against the real OFAC SDN and consolidated lists in test/fixtures, the matcher's real workload) into a private
// redis-server, then measures the version: MEMORY USAGE of every bucket, its meta and its not-eligible bitmap ÷
// carriers, bucket encodings, record lengths (p50/p99/max, records over 256 bytes). --scale K then writes the same
// records K times under shifted MC numbers (MC + k × N) as one more version, so a bucket holds K times as many
// carriers (~122 at K × N = 2M) and the allocator's size classes are those of a full-size snapshot, and measures it
// the same way: the figure for a 2M-carrier version without a 2M-row ingest. Writes .bench-out/version-bytes.json.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { writeSyntheticFiles } from '../src/ingest/synthetic.js';
import { CARRIER_BUCKETS, redisKeys, type RedisKeys } from '../src/store/keys.js';

const { values } = parseArgs({ options: {
  carriers: { type: 'string', default: '200000' }, 'real-lists': { type: 'boolean', default: false }, scale: { type: 'string', default: '1' },
} });
const N = Number(values.carriers);
const SCALE = Number(values.scale);
const dir = `.bench-out/synthetic-${N}`;
const prefix = 'vb:';
const keys = redisKeys(prefix);

const port = await new Promise<number>((resolve) => {
  const server = createServer().listen(0, '127.0.0.1', () => {
    const address = server.address();
    server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
  });
});
const redisServer = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
const url = `redis://127.0.0.1:${port}`;
await new Promise((resolve) => setTimeout(resolve, 300));
const redis = new Redis(url);
if (!existsSync(`${dir}/census_az4n-8mr2.csv`)) await writeSyntheticFiles(dir, N);

const today = new Date().toISOString().slice(0, 10);
const sdn = 'test/fixtures/real/ofac/sdn_2021-07';
const cons = 'test/fixtures/real/ofac/cons_nonsdn';
const ofac = values['real-lists']
  ? ['--ofac-sdn', `${sdn}/sdn.csv`, '--ofac-alt', `${sdn}/alt.csv`, '--ofac-add', `${sdn}/add.csv`,
    '--ofac-cons', `${cons}/cons_prim.csv`, '--ofac-cons-alt', `${cons}/cons_alt.csv`, '--ofac-cons-add', `${cons}/cons_add.csv`]
  : ['--ofac-sdn', `${dir}/sdn.csv`, '--ofac-alt', `${dir}/alt.csv`];
const started = Date.now();
const code = await new Promise<number | null>((resolve) => spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'ingest',
  '--census', `${dir}/census_az4n-8mr2.csv`, '--authority', `${dir}/li_carrier_legacy.txt`, '--insurance', `${dir}/li_actpendinsur_legacy.txt`,
  '--insurance-history', `${dir}/li_inshist_legacy.txt`, '--revocations', `${dir}/li_revocation_legacy.csv`, '--oos', `${dir}/oos_p2mt-9ige.csv`,
  '--sam', `${dir}/SAM_Exclusions_Public_V2.csv`, '--dnu', `${dir}/do_not_use.csv`, ...ofac,
  '--as-of-source', `authority=${today},insurance_history=${today},ofac_sdn=${today},ofac_cons=${today}`],
{ env: { ...process.env, REDIS_URL: url, REDIS_PREFIX: prefix, INGEST_WRITE_RATE: '0' }, stdio: ['ignore', 'ignore', 'inherit'] }).on('exit', resolve));
if (code !== 0) throw new Error(`ingest exited ${code}`);
const ingestSeconds = (Date.now() - started) / 1000;

async function measure(version: string, carriers: number, k: RedisKeys) {
  let bytes = 0;
  const encodings: Record<string, number> = {};
  const lengths: number[] = [];
  for (let start = 0; start < CARRIER_BUCKETS; start += 256) {
    const pipeline = redis.pipeline();
    for (let bucket = start; bucket < start + 256; bucket++) {
      pipeline.memory('USAGE', k.carrierBucket(version, bucket), 'SAMPLES', '0');
      pipeline.object('ENCODING', k.carrierBucket(version, bucket));
    }
    const replies = (await pipeline.exec()) ?? [];
    for (let i = 0; i < replies.length; i += 2) {
      bytes += Number(replies[i]?.[1] ?? 0);
      const encoding = String(replies[i + 1]?.[1] ?? 'none');
      encodings[encoding] = (encodings[encoding] ?? 0) + 1;
    }
  }
  bytes += Number(await redis.memory('USAGE', k.snapshotMeta(version)) ?? 0) + Number(await redis.memory('USAGE', k.snapshotNotEligible(version)) ?? 0);
  for (let bucket = 0; bucket < CARRIER_BUCKETS; bucket += 8) {
    for (const value of Object.values(await redis.hgetall(k.carrierBucket(version, bucket)))) lengths.push(Buffer.byteLength(value));
  }
  lengths.sort((a, b) => a - b);
  const q = (p: number) => lengths[Math.min(lengths.length - 1, Math.floor(p * lengths.length))] ?? 0;
  return {
    carriers, bytes, bytes_per_carrier: Number((bytes / carriers).toFixed(1)), bucket_encodings: encodings,
    record_bytes: { sampled: lengths.length, p50: q(0.5), p99: q(0.99), max: lengths[lengths.length - 1] ?? 0, over_256: lengths.filter((n) => n > 256).length },
  };
}

const version = (await redis.get(keys.snapshotCurrent)) ?? '';
const carriers = Number(JSON.parse((await redis.get(keys.snapshotMeta(version))) ?? '{}').carrier_count ?? 0);
const result: Record<string, unknown> = {
  carriers, real_lists: values['real-lists'], ingest_seconds: ingestSeconds, measured_at: new Date().toISOString(),
  ingested: await measure(version, carriers, keys),
};

if (SCALE > 1) {
  // The same records K times under shifted MC numbers: MC + k × N lands in bucket (MC + k × N) mod 16,384.
  const scaledKeys = redisKeys('vbs:');
  const scaled = 'vscaled';
  for (let bucket = 0; bucket < CARRIER_BUCKETS; bucket++) {
    const records = await redis.hgetall(keys.carrierBucket(version, bucket));
    const pipeline = redis.pipeline();
    for (const [mc, value] of Object.entries(records)) {
      for (let k = 0; k < SCALE; k++) {
        const shifted = String(Number(mc) + k * N);
        pipeline.hset(scaledKeys.carrierBucket(scaled, Number(shifted) % CARRIER_BUCKETS), shifted, value);
      }
    }
    await pipeline.exec();
  }
  await redis.set(scaledKeys.snapshotMeta(scaled), (await redis.get(keys.snapshotMeta(version))) ?? '{}');
  result.scaled = { factor: SCALE, ...await measure(scaled, carriers * SCALE, scaledKeys) };
}
process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
await writeFile('.bench-out/version-bytes.json', `${JSON.stringify(result, null, 2)}\n`);
redis.disconnect();
redisServer.kill('SIGKILL');
