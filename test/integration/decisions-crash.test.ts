// "Never deliver an unrecorded decision": a replica SIGKILLed under load may lose answers it never sent, but
// every decision id a client did receive has its record. And when the record write fails, the caller gets a
// degraded verdict (with its own id), never the real verdict unrecorded.
// The archiver SIGKILLed at each step of a pass (after each object it writes, mid-eviction, during a catch-up)
// loses no record and, read back, duplicates none.
import { execFile, spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ArchiveReader } from '../../src/decisions/archive-reader.js';
import { LocalArchiveStore } from '../../src/decisions/archive-store.js';
import { verifyArchive } from '../../src/decisions/archive-verify.js';
import { idMillis } from '../../src/decisions/record-codec.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DecisionReader } from '../../src/decisions/reader.js';
import { DecisionRecorder } from '../../src/decisions/recorder.js';
import { createRedis } from '../../src/redis/connection.js';
import type { RecordContext } from '../../src/decisions/record-codec.js';
import { EligibilityService, isUnrecorded } from '../../src/eligibility/service.js';
import type { Verdict } from '../../src/core/verdict.js';
import { cleanCarrier, startTestApp, type TestApp } from '../helpers/harness.js';
import { freePort } from '../helpers/private-redis.js';

let t: TestApp;
let key: string;

beforeAll(async () => {
  t = await startTestApp();
  await t.publishRules();
  await t.writeSnapshot(Array.from({ length: 50 }, (_, index) => cleanCarrier(String(100_001 + index))));
  ({ key } = await t.createKey({ rate_per_minute: 10_000_000 }));
  await t.app.parts.state.poll();
});

afterAll(async () => {
  await t.stop();
});

/** One recorded check as a promise, as the eligibility route asks for it (checkInto). */
const checkOnce = (service: EligibilityService, mc: string, backendOk: boolean, context: RecordContext): Promise<Verdict> =>
  new Promise((resolve, reject) => service.checkInto(mc, backendOk, context, { checked: resolve, checkFailed: reject }));

describe('records survive a SIGKILLed replica', () => {
  it('every decision id a client received is retrievable (0 missing)', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      env: {
        ...process.env, PORT: String(port), HOST: '127.0.0.1', REDIS_URL: t.config.REDIS_URL, REDIS_PREFIX: t.config.REDIS_PREFIX,
        LOG_LEVEL: 'info', ROLE: 'api', STATE_POLL_MS: '100',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    await expect.poll(() => output.includes('"listening"'), { timeout: 20_000, interval: 50 }).toBe(true);

    const received: string[] = [];
    let failures = 0;
    let stop = false;
    const client = async (worker: number) => {
      for (let n = 0; !stop; n++) {
        try {
          const response = await fetch(`http://127.0.0.1:${port}/v1/eligibility`, {
            method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' },
            body: JSON.stringify({ mc_number: String(100_001 + ((worker + n) % 60)) }),
          });
          const verdict = await response.json() as { decision_id?: string; degraded?: boolean };
          if (response.status === 200 && verdict.decision_id && !verdict.degraded) received.push(verdict.decision_id);
        } catch {
          failures += 1;
        }
      }
    };
    const clients = Array.from({ length: 32 }, (_, worker) => client(worker));
    await expect.poll(() => received.length, { timeout: 20_000, interval: 10 }).toBeGreaterThan(400);
    child.kill('SIGKILL');
    await exited;
    stop = true;
    await Promise.all(clients);
    expect(failures).toBeGreaterThan(0); // the kill did land mid-traffic

    const reader = new DecisionReader(t.redis, t.keys);
    const missing: string[] = [];
    for (const id of received) if (!(await reader.readStored(id))) missing.push(id);
    expect({ received: received.length, missing }).toEqual({ received: received.length, missing: [] });
  }, 60_000);
});

describe('a record write that fails', () => {
  it('turns the verdict into a degraded backend_unavailable one with a new id, marked unrecorded', async () => {
    const { parts } = t.app;
    // Records go to a port nobody listens on; everything else uses the real Redis.
    const dead = createRedis(`redis://127.0.0.1:${await freePort()}`, 'request-path', 100);
    const service = new EligibilityService(parts.redis, parts.keys, parts.state, {
      cacheMax: 10, maxDataAgeSeconds: parts.config.MAX_DATA_AGE_SECONDS,
      recorder: new DecisionRecorder(dead, parts.keys, { retentionSeconds: 3600, maxDataAgeSeconds: 3600 }),
    });
    try {
      const real = await service.evaluate('100001');
      expect(real.eligible).toBe(true);
      const answered = await checkOnce(service, '100001', true, {
        kind: 'check', keyId: 'k', account: 'acme', requestId: 'r', reference: null, jobId: null, row: null,
      });
      expect(answered).toMatchObject({ eligible: false, degraded: true, tier: null, reasons: ['backend_unavailable'] });
      expect(isUnrecorded(answered)).toBe(true);
      expect(await new DecisionReader(t.redis, t.keys).readStored(answered.decision_id)).toBeNull();
    } finally {
      dead.disconnect();
      await parts.state.poll();
    }
  });
});

describe('the checks waiting on one record write', () => {
  it('are all told, by waiter and by promise, even when one waiter throws; and the records are there', async () => {
    const { parts } = t.app;
    const recorder = new DecisionRecorder(parts.redis, parts.keys, { retentionSeconds: 3600, maxDataAgeSeconds: 3600 });
    const service = new EligibilityService(parts.redis, parts.keys, parts.state, {
      cacheMax: 10, maxDataAgeSeconds: parts.config.MAX_DATA_AGE_SECONDS, recorder,
    });
    const context = { kind: 'check' as const, keyId: 'k', account: 'acme', requestId: 'r', reference: null, jobId: null, row: null };
    const verdicts = await Promise.all(['100001', '100002', '100003'].map((mc) => service.evaluate(mc)));
    const told: boolean[] = [];
    // One turn: a waiter that throws first, then two that must still hear, then a promise caller.
    recorder.recordFor(verdicts[0]!, context, { recorded: () => { throw new Error('bug in a waiter'); } });
    recorder.recordFor(verdicts[1]!, context, { recorded: (ok) => told.push(ok) });
    recorder.recordFor(verdicts[2]!, context, { recorded: (ok) => told.push(ok) });
    expect(await recorder.record(verdicts[2]!, { ...context, requestId: 'r2' })).toBe(true);
    expect(told).toEqual([true, true]);
    const reader = new DecisionReader(t.redis, t.keys);
    for (const verdict of verdicts) expect(await reader.readStored(verdict.decision_id)).not.toBeNull();
  });

  it('fail, not hang, when a record cannot even be encoded after a carrier read (a bug, answered as a 500)', async () => {
    const { parts } = t.app;
    const recorder = new DecisionRecorder(parts.redis, parts.keys, { retentionSeconds: 3600, maxDataAgeSeconds: 3600 });
    // A fresh service: an empty LRU, so the check waits for its carrier read first and is resumed by the read's loop.
    const service = new EligibilityService(parts.redis, parts.keys, parts.state, {
      cacheMax: 10, maxDataAgeSeconds: parts.config.MAX_DATA_AGE_SECONDS, recorder,
    });
    const bug = new Error('record encoding bug');
    const spy = vi.spyOn(recorder, 'recordFor').mockImplementation(() => {
      throw bug;
    });
    try {
      const context = { kind: 'check' as const, keyId: 'k', account: 'acme', requestId: 'r', reference: null, jobId: null, row: null };
      await expect(checkOnce(service, '100004', true, context)).rejects.toBe(bug);
      expect(spy).toHaveBeenCalledTimes(1);
    } finally {
      spy.mockRestore();
    }
  });
});

describe('the archiver SIGKILLed at any step of a pass', () => {
  const run = promisify(execFile);
  const CHILD = new URL('../helpers/archiver-child.ts', import.meta.url).pathname;
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');

  it('loses no record, and every record reads back once (dedupe by id)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'archiver-crash-'));
    // An account of its own: the replica killed above left records of acme's in Redis too.
    const { key: ownKey } = await t.createKey({ account: 'archive-crash', rate_per_minute: 10_000_000 });
    const store = new LocalArchiveStore(dir);
    const written: string[] = [];
    const check = async (count: number) => {
      const ids = await Promise.all(Array.from({ length: count }, async (_, n) => {
        const response = await t.post('/v1/eligibility', { mc_number: String(100_001 + (n % 50)) }, { 'x-api-key': ownKey });
        const verdict = await response.json() as { decision_id: string; degraded?: boolean };
        // A degraded answer (its record write timed out on this loaded machine) has no record by design.
        return verdict.degraded ? null : verdict.decision_id;
      }));
      for (const id of ids) if (id !== null) written.push(id);
    };
    /** One pass in a child that SIGKILLs itself at `point`; resolves with how it ended. */
    const pass = async (point: string): Promise<{ signal: string | null; stdout: string }> => {
      const env = {
        ...process.env, ARCHIVER_KILL: point, ARCHIVE_DIR: dir, REDIS_URL: t.config.REDIS_URL, REDIS_PREFIX: t.config.REDIS_PREFIX,
        DECISION_SIGNING_KEY: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
      };
      try {
        const { stdout } = await run(process.execPath, ['--import', 'tsx', CHILD], { env });
        return { signal: null, stdout };
      } catch (error) {
        const failed = error as { signal?: string; stdout?: string; stderr?: string };
        if (failed.signal !== 'SIGKILL') throw new Error(`archiver child failed: ${failed.stderr ?? String(error)}`);
        return { signal: failed.signal, stdout: failed.stdout ?? '' };
      }
    };
    /** Ids found neither in Redis nor in a committed archive segment. */
    const lost = async () => {
      const reader = new DecisionReader(t.redis, t.keys);
      const archive = new ArchiveReader(store);
      const out: string[] = [];
      for (const id of written) if (!(await reader.readStored(id)) && !(await archive.read(id))) out.push(id);
      return out;
    };
    try {
      await check(60);
      // Each pass dies one step later into the first segment's commit: after the snapshot object, after the data
      // file, after the index, after the manifest (before head.json); then, with new records and a record that
      // reached an archived second late (a catch-up segment), mid-eviction; then early in later passes.
      const plan = ['put:1', 'put:3', 'put:4', 'put:5', 'evict', 'put:2', 'put:1'];
      for (const point of plan) {
        if (point === 'evict') {
          await check(40);
          const [first] = written as [string];
          const second = Math.floor(idMillis(first) / 1000);
          const late = `${first.slice(0, 24)}${'f'.repeat(12)}`;
          await t.redis.hset(t.keys.decisionBucket(second), late, await t.redis.hget(t.keys.decisionBucket(second), first) as string);
          written.push(late);
          // The first segment must be older than the eviction margin (EVICT_MARGIN_SECONDS) to be evicted whole.
          await new Promise((resolve) => setTimeout(resolve, 2500));
        }
        // A pass archives up to the second after its start: one started in the same second as the pass before it
        // has nothing to write and ends before its kill point. The next pass starts in a later second.
        await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000) + 20));
        const ended = await pass(point);
        expect({ point, signal: ended.signal }).toEqual({ point, signal: 'SIGKILL' });
        expect({ point, lost: await lost() }).toEqual({ point, lost: [] });
      }
      // The pass that completes: archives the rest and evicts every archived second.
      await new Promise((resolve) => setTimeout(resolve, 2500));
      const last = await pass('none');
      expect(last.signal).toBeNull();
      expect(await lost()).toEqual([]);
      const reader = new DecisionReader(t.redis, t.keys);
      for (const id of written) expect(await reader.readStored(id)).toBeNull();

      const archive = new ArchiveReader(store);
      for (const id of written) expect((await archive.read(id))?.decision_id).toBe(id);
      const found = await archive.find({ account: 'archive-crash', mc: null, fromMs: Date.now() - 3_600_000, toMs: Date.now() + 1000, afterId: null, limit: 10_000 }, Date.now() + 1000);
      const foundIds = found.items.map((item) => item.decision_id);
      expect(new Set(foundIds).size).toBe(foundIds.length);
      expect([...foundIds].sort()).toEqual([...written].sort());

      const verified = await verifyArchive(store, publicKey, { nowMs: Date.now(), archiveYears: 10 });
      expect(verified.problem).toBeNull();
      // The catch-up segment holds its second's records again: the archive stores more lines than records.
      expect(verified.records).toBeGreaterThan(written.length);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
