// Bytes of Redis memory per decision record, measured, not estimated: a private redis-server (no persistence),
// N records written through the service's own DecisionRecorder in event-loop turns of --per-turn records, a
// realistic mix (most checks eligible, a tenth with reasons, 2,000 distinct carriers, half with a caller
// reference, UUID request ids), then INFO memory before/after. Prints bytes per record, the shared-evidence
// bytes, recorder CPU per record, and Redis memory per day at 1k / 10k / 50k checks/s for the retention window.
//
// With --archive, the continuous archiver then moves them into a local archive store (one pass, as the worker
// runs it): archive bytes per record on disk (data, index, manifests) and records per CPU-second of the
// archiver's process (records/s per core; Redis' own CPU reported beside it).
//
//   node --import tsx bench/decision-bytes.ts [--records 200000] [--per-turn 100] [--retention-days 2] [--archive]
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { generateApiKey } from '../src/auth/api-key.js';
import type { CarrierRecord, SnapshotMeta } from '../src/core/carrier.js';
import { decide } from '../src/core/decide.js';
import { DEFAULT_RULE_SET } from '../src/core/ruleset.js';
import { exportDecisions } from '../src/decisions/archive.js';
import { LocalArchiveStore } from '../src/decisions/archive-store.js';
import { DecisionArchiver, secondOf } from '../src/decisions/archiver.js';
import { parseLegalHold } from '../src/decisions/legal-hold.js';
import { DecisionRecorder } from '../src/decisions/recorder.js';
import { encodeRecord } from '../src/decisions/record-codec.js';
import { createRedis } from '../src/redis/connection.js';
import { redisKeys } from '../src/store/keys.js';
import { toVerdict } from '../src/decisions/decision-id.js';
import { PrivateRedis } from '../test/helpers/private-redis.js';

const { values } = parseArgs({
  options: {
    records: { type: 'string', default: '200000' },
    'per-turn': { type: 'string', default: '100' },
    'retention-days': { type: 'string', default: '2' },
    archive: { type: 'boolean', default: false },
    /** Also export the records (signed NDJSON.gz) and report archive bytes per record. */
    export: { type: 'boolean', default: false },
  },
});
const RECORDS = Number(values.records);
const PER_TURN = Number(values['per-turn']);
const RETENTION_DAYS = Number(values['retention-days']);
const CARRIERS = 2000;

const now = Date.now();
const iso = new Date(now).toISOString();
const sha = (n: number) => n.toString(16).padStart(64, 'a');
const SNAPSHOT = {
  version: 'vbench01', data_as_of: iso, created_at: iso, carrier_count: 1_000_000,
  sources: Object.fromEntries(['census', 'authority', 'insurance', 'insurance_history', 'revocations', 'oos', 'ofac_sdn', 'ofac_cons', 'sam', 'dnu']
    .map((name, index) => [name, { present: true, as_of: iso, rows: 100_000, files: [{ name: `${name}.csv`, sha256: sha(index), bytes: 1e7, rows: 100_000 }] }])),
} as unknown as SnapshotMeta;
const RULESET = { version: 3, published_at: iso, rules: DEFAULT_RULE_SET };
const recent = new Date(now - 200 * 86_400_000).toISOString().slice(0, 10);

function carrier(index: number): CarrierRecord {
  const mc = String(100_000 + index);
  const base: CarrierRecord = {
    mc, dot: String(3_000_000 + index), legal_name: `SAMPLE TRUCKING ${index} LLC`, dba_name: index % 3 === 0 ? `ST ${index}` : null, usdot_status: 'A',
    authority: { status: 'active', granted_on: '2015-03-01', revocation_pending_on: null, revoked_on: null },
    insurance: { bipd_on_file_usd: 1_000_000, bipd_required_usd: 750_000, cancellation_effective_on: null },
    hazmat: false, safety_rating: index % 2 === 0 ? 'S' : null, mcs150_date: recent, oos_order: null, hits: [],
  };
  // One in ten carriers raises reasons (review or hard stop), like a real roster.
  if (index % 10 === 1) base.safety_rating = 'C';
  if (index % 10 === 3) base.insurance = { ...base.insurance, bipd_on_file_usd: 300_000 };
  if (index % 20 === 7) base.oos_order = { since: recent, reason: 'New Entrant Revoked - Refusal of Audit/No Contact' };
  return base;
}

async function usedMemory(redis: ReturnType<typeof createRedis>): Promise<number> {
  const info = await redis.info('memory');
  return Number(/used_memory:(\d+)/.exec(info)?.[1] ?? NaN);
}

const server = await PrivateRedis.start();
const redis = createRedis(server.url, 'background');
try {
  const keys = redisKeys('ce:');
  const recorder = new DecisionRecorder(redis, keys, { retentionSeconds: RETENTION_DAYS * 86_400, maxDataAgeSeconds: 172_800 });
  recorder.noteSnapshot(SNAPSHOT);
  await redis.set(keys.ruleset(RULESET.version), JSON.stringify(RULESET));
  const carriers = Array.from({ length: CARRIERS }, (_, index) => carrier(index));
  const keyIds = Array.from({ length: 50 }, () => generateApiKey().id);
  const before = await usedMemory(redis);
  let cpu = 0n;
  let recordChars = 0;
  const started = Date.now();
  for (let written = 0; written < RECORDS;) {
    const t0 = process.hrtime.bigint();
    let done: Promise<boolean> | null = null;
    for (let k = 0; k < PER_TURN && written < RECORDS; k++, written++) {
      const record = carriers[(written * 7919) % CARRIERS] as CarrierRecord;
      const nowMs = Date.now();
      const verdict = toVerdict(decide({
        lookup: { kind: 'found', record }, ruleset: RULESET, snapshot: SNAPSHOT, backendAvailable: true, maxDataAgeSeconds: 172_800, nowMs,
      }), record.mc, nowMs, true);
      const context = {
        kind: 'check' as const, keyId: keyIds[written % keyIds.length] as string, account: `account-${written % 10}`, requestId: randomUUID(),
        reference: written % 2 === 0 ? `LD-${(written * 31).toString().padStart(9, '0')}` : null, jobId: null, row: null,
      };
      if (written % 100 === 0) recordChars += encodeRecord(verdict, context).length + verdict.decision_id.length;
      done = recorder.record(verdict, context);
    }
    cpu += process.hrtime.bigint() - t0;
    if (!(await done)) throw new Error('record write failed');
  }
  const after = await usedMemory(redis);
  const evidenceKeys = (await redis.keys('ce:{dev:*')).length;
  let evidenceBytes = 0;
  for (const key of (await redis.keys('ce:{dev:*')).slice(0, 200)) evidenceBytes += Number(await redis.memory('USAGE', key));
  const evidencePerKey = evidenceBytes / Math.min(200, evidenceKeys);
  const bucketKeys = await redis.keys('ce:{dec:*');
  let bucketBytes = 0;
  for (const key of bucketKeys) bucketBytes += Number(await redis.memory('USAGE', key, 'SAMPLES', '0'));
  const perRecord = (after - before - evidenceKeys * evidencePerKey) / RECORDS;
  const day = (rate: number) => rate * 86_400 * perRecord;
  const gb = (bytes: number) => `${(bytes / 1e9).toFixed(1)} GB`;
  let archive: Record<string, number> | null = null;
  if (values.export) {
    const dir = await mkdtemp(join(tmpdir(), 'decision-bytes-'));
    const exportStarted = Date.now();
    const exported = await exportDecisions(redis, keys, {
      fromMs: started - 1000, toMs: Date.now() + 1000, outDir: dir, signingKey: generateKeyPairSync('ed25519').privateKey,
    });
    let bytes = 0;
    for (const file of exported.files) bytes += (await import('node:fs/promises').then((fs) => fs.stat(file.file))).size;
    archive = { records: exported.records, gzip_bytes_per_record: Math.round(bytes / exported.records), export_records_per_s: Math.round(exported.records / ((Date.now() - exportStarted) / 1000)) };
    await rm(dir, { recursive: true, force: true });
  }
  let archived: Record<string, number> | null = null;
  if (values.archive) {
    const dir = await mkdtemp(join(tmpdir(), 'decision-archive-bench-'));
    const store = new LocalArchiveStore(dir);
    const archiver = new DecisionArchiver(redis, keys, store, generateKeyPairSync('ed25519').privateKey, {
      retentionSeconds: RETENTION_DAYS * 86_400, archiveYears: 10, legalHold: parseLegalHold(''),
    });
    const redisCpu = async () => Number(/used_cpu_user:([\d.]+)/.exec(await redis.info('cpu'))?.[1] ?? NaN) + Number(/used_cpu_sys:([\d.]+)/.exec(await redis.info('cpu'))?.[1] ?? NaN);
    const cpu0 = process.cpuUsage();
    const redis0 = await redisCpu();
    const wall0 = Date.now();
    const pass = await archiver.archiveUntil(secondOf(Date.now()) + 1);
    const cpu = process.cpuUsage(cpu0);
    const cpuSeconds = (cpu.user + cpu.system) / 1e6;
    let bytes = 0;
    for (const key of await store.list('')) bytes += (await store.get(key))?.length ?? 0;
    archived = {
      records: pass.records, segments: pass.segments, archive_bytes_per_record: +(bytes / pass.records).toFixed(1),
      archiver_cpu_seconds: +cpuSeconds.toFixed(2), records_per_cpu_second: Math.round(pass.records / cpuSeconds),
      redis_cpu_seconds: +((await redisCpu()) - redis0).toFixed(2), wall_records_per_s: Math.round(pass.records / ((Date.now() - wall0) / 1000)),
    };
    await rm(dir, { recursive: true, force: true });
  }
  const result = {
    archived,
    records: RECORDS, per_turn: PER_TURN, distinct_carriers: CARRIERS,
    used_memory_delta_bytes: after - before,
    bytes_per_record: Math.round(perRecord),
    stored_chars_per_record_id_plus_value: Math.round(recordChars / Math.ceil(RECORDS / 100)),
    bucket_memory_usage_bytes_per_record: Math.round(bucketBytes / RECORDS),
    shared_evidence_keys: evidenceKeys, shared_evidence_bytes_per_key: Math.round(evidencePerKey),
    decide_encode_enqueue_wall_us_per_record: Number(cpu / BigInt(RECORDS)) / 1000,
    redis_memory_per_day: { '1k/s': gb(day(1_000)), '10k/s': gb(day(10_000)), '50k/s': gb(day(50_000)) },
    archive,
    [`redis_memory_for_${RETENTION_DAYS}_days`]: {
      '1k/s': gb(day(1_000) * RETENTION_DAYS), '10k/s': gb(day(10_000) * RETENTION_DAYS), '50k/s': gb(day(50_000) * RETENTION_DAYS),
    },
  };
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
} finally {
  redis.disconnect();
  await server.kill();
}
