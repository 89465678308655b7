// What a carrier snapshot switch ("flip", the commit at the end of every ingest) does to single checks on an API
// replica. A replica empties its in-process carrier LRU when the snapshot version it serves changes, so right after
// an ingest every check is a cache miss (one more Redis read, more CPU, more latency) until the working set is read
// again; with CARRIER_CACHE_WARM_MAX > 0 the replica first re-reads the carriers its LRU held from the new snapshot
// and adopts them, so checks after the switch stay cache hits. Both settings are measured in one run:
// CARRIER_CACHE_WARM_MAX=0 ("off") and CARRIER_CACHE_WARM_MAX=<working set> ("warm"). On a tree whose config does
// not know CARRIER_CACHE_WARM_MAX (loadConfig ignores unknown names) both settings behave alike, as "off".
//
// Per setting, under its own random prefix: one rule set, snapshot A with carriers MC 1..N (every 7th with a hard
// stop, as http-load's seed) and all sources present, one API key with a huge budget; snapshot B (same carriers,
// data_as_of one minute later) is written but not committed before the load starts, so the ingest's writes do not
// disturb the "before" phase. One replica runs in this process (ROLE=api, startApp, default STATE_POLL_MS,
// CARRIER_CACHE_MAX above N). Its cache is warmed by checking every MC once; then checks of random MCs of the working
// set go out at a fixed rate (node:http, keep-alive, at most 32 in flight) for 3 s ("before"), B is committed (the
// pointer flips; the replica sees it within STATE_POLL_MS), and the load goes on for 4 s more (extended, if need
// be, until 4 s after B was first seen in an answer, so the windows below are whole).
//
//   node --import tsx bench/snapshot-flip.ts [working set, default 20000] [rate, checks/s, default 4000]
//
// Prints one JSON line per setting, then a short table. Phases are by send time: before (3 s before the commit),
// switching (commit .. first answer carrying B's data_as_of), after_1s (the 1 s from that first answer) and
// after_next_3s (the 3 s after that). Per phase: checks answered, p50/p99/max latency in ms, share of
// cache_hit:false answers, process CPU µs per check (process.cpuUsage deltas) and the longest event-loop stall
// (max_loop_gap_ms, the longest gap between the pacer's 1 ms ticks). The load generator runs in the same process as
// the replica, so CPU per check includes the client's share: compare phases and settings, not absolute values; and
// latency is timed from the actual send, so a stalled loop shows as max_loop_gap_ms and late_sends (sent > 10 ms
// behind schedule) rather than in the latencies. Also: ms from the commit's return to the first answer carrying B (switch_seen_ms) and answers
// to checks sent after that still carrying A's data_as_of (stale_after_switch, should be 0).
//
// Uses REDIS_URL (default redis://127.0.0.1:6379) under random prefixes, removed afterwards; traffic only to
// 127.0.0.1. Only APIs that predate CARRIER_CACHE_WARM_MAX are used, so the same file measures the old code.
import { randomBytes } from 'node:crypto';
import { Agent, request } from 'node:http';
import { startApp, type RunningApp } from '../src/app.js';
import { KeyAdmin } from '../src/auth/key-store.js';
import { loadConfig } from '../src/config.js';
import type { CarrierRecord } from '../src/core/carrier.js';
import { DEFAULT_RULE_SET, SOURCE_NAMES } from '../src/core/ruleset.js';
import { createLogger } from '../src/log.js';
import { createRedis, type RedisClient } from '../src/redis/connection.js';
import { deleteByPrefix } from '../src/redis/delete-by-prefix.js';
import { redisKeys, type RedisKeys } from '../src/store/keys.js';
import { publishRuleSet } from '../src/store/rulesets.js';
import { newSnapshotVersion, SnapshotWriter } from '../src/store/snapshot-writer.js';
import { cleanCarrier } from '../test/helpers/harness.js';

const WORKING_SET = Number(process.argv[2] ?? 20_000);
const RATE = Number(process.argv[3] ?? 4000);
if (!Number.isInteger(WORKING_SET) || WORKING_SET < 1 || !(RATE > 0)) {
  process.stderr.write('usage: node --import tsx bench/snapshot-flip.ts [working set >= 1] [rate, checks/s > 0]\n');
  process.exit(2);
}
const BEFORE_MS = 3000;
const AFTER_MS = 4000;
const FIRST_WINDOW_MS = 1000;
const MAX_IN_FLIGHT = 32;
const SETTINGS: ReadonlyArray<{ name: string; warmMax: number }> = [
  { name: 'off', warmMax: 0 },
  { name: 'warm', warmMax: WORKING_SET },
];

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const round1 = (value: number) => Math.round(value * 10) / 10;

interface Sample { sent: number; received: number; ms: number; status: number; cacheHit: boolean | null; dataAsOf: string | null }
interface CpuMark { at: number; us: number }

/** Every 7th carrier has a hard stop, as in http-load's seed, so verdicts are not all alike. */
function carrier(mc: number): CarrierRecord {
  return cleanCarrier(String(mc), mc % 7 === 0 ? { safety_rating: 'U' } : {});
}

/** Writes every carrier of the working set into a new version, not yet committed (not current). */
async function writeSnapshot(redis: RedisClient, keys: RedisKeys): Promise<SnapshotWriter> {
  const writer = new SnapshotWriter(redis, keys, newSnapshotVersion(Date.now()));
  await writer.begin(Date.now());
  for (let mc = 1; mc <= WORKING_SET; mc += 1) await writer.put(String(mc), carrier(mc));
  return writer;
}

async function commitSnapshot(writer: SnapshotWriter, asOf: string): Promise<void> {
  // Every source present and fresh: verdicts are fully screened, never data_stale.
  await writer.commit({
    data_as_of: asOf, created_at: new Date().toISOString(), carrier_count: WORKING_SET,
    sources: Object.fromEntries(SOURCE_NAMES.map((source) => [source, { present: true, as_of: asOf, rows: WORKING_SET }])),
  });
}

function latency(samples: Sample[]): { checks: number; p50: number; p99: number; max: number; miss_share: number } {
  const sorted = samples.map((s) => s.ms).sort((a, b) => a - b);
  const at = (q: number) => round1(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0);
  const misses = samples.filter((s) => s.cacheHit === false).length;
  return {
    checks: sorted.length, p50: at(0.5), p99: at(0.99), max: at(1),
    miss_share: sorted.length === 0 ? 0 : Math.round((misses / sorted.length) * 1000) / 1000,
  };
}

/** Process CPU (µs) at `at`, interpolated between the marks taken by the pacer. */
function cpuAt(marks: CpuMark[], at: number): number {
  let lo = 0;
  let hi = marks.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((marks[mid] as CpuMark).at < at) lo = mid + 1;
    else hi = mid;
  }
  const after = marks[lo] as CpuMark;
  const before = marks[Math.max(0, lo - 1)] as CpuMark;
  if (after.at <= at || after.at === before.at) return after.us;
  return before.us + ((after.us - before.us) * (at - before.at)) / (after.at - before.at);
}

class Client {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: MAX_IN_FLIGHT });

  constructor(private readonly port: number, private readonly apiKey: string) {}

  check(mc: number): Promise<Sample> {
    const body = `{"mc_number":"${mc}"}`;
    const sent = performance.now();
    return new Promise<Sample>((resolve, reject) => {
      const req = request({
        host: '127.0.0.1', port: this.port, path: '/v1/eligibility', method: 'POST', agent: this.agent,
        headers: { 'x-api-key': this.apiKey, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const received = performance.now();
          let cacheHit: boolean | null = null;
          let dataAsOf: string | null = null;
          try {
            const parsed: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
            if (parsed !== null && typeof parsed === 'object') {
              const fields = parsed as Record<string, unknown>;
              if (typeof fields.cache_hit === 'boolean') cacheHit = fields.cache_hit;
              if (typeof fields.data_as_of === 'string') dataAsOf = fields.data_as_of;
            }
          } catch {
            // A body that is not JSON counts as an answer without cache_hit / data_as_of.
          }
          resolve({ sent, received, ms: received - sent, status: res.statusCode ?? 0, cacheHit, dataAsOf });
        });
      });
      req.setTimeout(5000, () => req.destroy(new Error('check timed out')));
      req.on('error', reject);
      req.end(body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

async function runSetting(redis: RedisClient, setting: { name: string; warmMax: number }, prefixes: string[]): Promise<Record<string, unknown>> {
  const prefix = `bench:${randomBytes(4).toString('hex')}:`;
  prefixes.push(prefix);
  const keys = redisKeys(prefix);
  const config = loadConfig({
    ...process.env, REDIS_PREFIX: prefix, PORT: '0', HOST: '127.0.0.1', ROLE: 'api', LOG_LEVEL: 'silent',
    CARRIER_CACHE_MAX: String(WORKING_SET * 2 + 1000), CARRIER_CACHE_WARM_MAX: String(setting.warmMax),
  });
  // Snapshot A two minutes old, B one minute later: both fresh, neither in the future.
  const asOfA = new Date(Date.now() - 120_000).toISOString();
  const asOfB = new Date(Date.now() - 60_000).toISOString();

  const { key: plaintext } = await new KeyAdmin(redis, keys).issue({ account: 'bench', label: 'bench', scopes: ['eligibility'], rate_per_minute: 1_000_000_000 });
  await publishRuleSet(redis, keys, DEFAULT_RULE_SET);
  await commitSnapshot(await writeSnapshot(redis, keys), asOfA);
  const writerB = await writeSnapshot(redis, keys);

  const app: RunningApp = await startApp(config, createLogger('silent', 'bench'));
  const client = new Client(app.http?.port ?? 0, plaintext);
  try {
    await sleep(500);
    // Warm the cache: every MC of the working set once, at most MAX_IN_FLIGHT at a time.
    let nextMc = 1;
    let warmErrors = 0;
    let warmMisses = 0;
    await Promise.all(Array.from({ length: MAX_IN_FLIGHT }, async () => {
      while (nextMc <= WORKING_SET) {
        const sample = await client.check(nextMc++);
        if (sample.status !== 200 || sample.dataAsOf !== asOfA) warmErrors += 1;
        if (sample.cacheHit === false) warmMisses += 1;
      }
    }));
    if (warmErrors > 0) throw new Error(`${warmErrors} warm-up checks failed or did not carry snapshot A`);

    // Paced load: a check every 1000/RATE ms on schedule, never more than MAX_IN_FLIGHT in flight.
    const samples: Sample[] = [];
    const marks: CpuMark[] = [];
    const cpuNow = () => { const usage = process.cpuUsage(); return usage.user + usage.system; };
    const interval = 1000 / RATE;
    const loadStart = performance.now();
    let stopAt = loadStart + BEFORE_MS + AFTER_MS + 60_000; // set for real once the commit returns
    let inFlight = 0;
    let errors = 0;
    let late = 0;
    let skipped = 0;
    let seenB: number | null = null;
    const pacer = (async () => {
      let next = loadStart;
      for (;;) {
        const now = performance.now();
        marks.push({ at: now, us: cpuNow() });
        if (now >= stopAt) break;
        while (next <= now && inFlight < MAX_IN_FLIGHT) {
          if (now - next > 10) late += 1;
          inFlight += 1;
          client.check(1 + Math.floor(Math.random() * WORKING_SET)).then((sample) => {
            samples.push(sample);
            if (sample.status !== 200) errors += 1;
            if (sample.dataAsOf === asOfB && (seenB === null || sample.received < seenB)) seenB = sample.received;
          }, () => { errors += 1; }).finally(() => { inFlight -= 1; });
          next += interval;
        }
        // Never build more than 1 s of debt: checks that could not go out in time are dropped, and counted.
        if (now - next > 1000) {
          const dropped = Math.floor((now - next) / interval);
          skipped += dropped;
          next += dropped * interval;
        }
        await sleep(1);
      }
      while (inFlight > 0) await sleep(5);
      marks.push({ at: performance.now(), us: cpuNow() });
    })();

    await sleep(BEFORE_MS);
    const commitStart = performance.now();
    await commitSnapshot(writerB, asOfB);
    const commitEnd = performance.now();
    stopAt = commitEnd + AFTER_MS;
    // Keep the load going until 4 s after B was first seen (it is seen within STATE_POLL_MS of the commit).
    while (performance.now() < stopAt) {
      const seen: number | null = seenB;
      if (seen !== null) stopAt = Math.max(commitEnd + AFTER_MS, seen + FIRST_WINDOW_MS + 3000);
      await sleep(20);
    }
    await pacer;

    const seen: number | null = seenB;
    const answered = samples.filter((s) => s.status === 200);
    const sentIn = (from: number, to: number) => answered.filter((s) => s.sent >= from && s.sent < to);
    const phase = (from: number, to: number) => {
      const inWindow = sentIn(from, to);
      const cpu = cpuAt(marks, to) - cpuAt(marks, from);
      // The longest gap between two pacer ticks: how long this process's event loop (the replica's) was blocked.
      let gap = 0;
      for (let i = 1; i < marks.length; i++) {
        const tick = marks[i] as CpuMark;
        const previous = marks[i - 1] as CpuMark;
        if (tick.at > from && previous.at < to) gap = Math.max(gap, tick.at - previous.at);
      }
      return {
        ...latency(inWindow), span_ms: Math.round(to - from),
        cpu_us_per_check: inWindow.length === 0 ? null : Math.round(cpu / inWindow.length), max_loop_gap_ms: round1(gap),
      };
    };
    const end = seen === null ? stopAt : seen + FIRST_WINDOW_MS + 3000;
    return {
      setting: setting.name, CARRIER_CACHE_WARM_MAX: setting.warmMax,
      warm_setting_in_config: 'CARRIER_CACHE_WARM_MAX' in config,
      working_set: WORKING_SET, rate: RATE, state_poll_ms: config.STATE_POLL_MS,
      warmup_misses: warmMisses, commit_ms: round1(commitEnd - commitStart),
      switch_seen_ms: seen === null ? null : round1(seen - commitEnd),
      before: phase(loadStart, commitStart),
      switching: seen === null ? null : phase(commitStart, seen),
      after_1s: seen === null ? null : phase(seen, seen + FIRST_WINDOW_MS),
      after_next_3s: seen === null ? null : phase(seen + FIRST_WINDOW_MS, end),
      stale_after_switch: seen === null ? null : answered.filter((s) => s.sent >= seen && s.dataAsOf === asOfA).length,
      unknown_data_as_of: answered.filter((s) => s.dataAsOf !== asOfA && s.dataAsOf !== asOfB).length,
      errors, late_sends: late, skipped_sends: skipped,
    };
  } finally {
    client.close();
    await app.stop();
  }
}

const redis = createRedis(loadConfig({ ...process.env, LOG_LEVEL: 'silent' }).REDIS_URL, 'background');
const prefixes: string[] = [];
const results: Array<Record<string, unknown>> = [];
try {
  for (const setting of SETTINGS) {
    const result = await runSetting(redis, setting, prefixes);
    results.push(result);
    process.stdout.write(`${JSON.stringify(result)}\n`);
  }
} finally {
  for (const prefix of prefixes) await deleteByPrefix(redis, prefix);
  redis.disconnect();
}

// The short table: one row per setting and phase.
const cell = (value: unknown, width: number) => String(value ?? '-').padStart(width);
const lines = [
  `${'setting'.padEnd(8)}${'phase'.padEnd(15)}${cell('checks', 7)}${cell('p50 ms', 8)}${cell('p99 ms', 8)}${cell('max ms', 8)}${cell('miss %', 8)}${cell('cpu µs', 8)}${cell('stall ms', 10)}`,
];
for (const result of results) {
  for (const name of ['before', 'switching', 'after_1s', 'after_next_3s']) {
    const phase = result[name] as { checks: number; p50: number; p99: number; max: number; miss_share: number; cpu_us_per_check: number | null; max_loop_gap_ms: number } | null;
    lines.push(`${String(result.setting).padEnd(8)}${name.padEnd(15)}${phase === null
      ? cell('-', 7)
      : `${cell(phase.checks, 7)}${cell(phase.p50, 8)}${cell(phase.p99, 8)}${cell(phase.max, 8)}${cell(round1(phase.miss_share * 100), 8)}${cell(phase.cpu_us_per_check, 8)}${cell(phase.max_loop_gap_ms, 10)}`}`);
  }
  lines.push(`${String(result.setting).padEnd(8)}switch seen ${String(result.switch_seen_ms)} ms after commit; stale answers after it: ${String(result.stale_after_switch)}`);
}
process.stdout.write(`${lines.join('\n')}\n`);
