// Identity history over successive real-layout census ingests (the sample census, with planted changes): only
// changes are recorded, with old and new values, the snapshot that first saw them and the census's own date;
// the history is read back through GET /v1/carriers/{mc}/history's use case and survives snapshot retirement.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { carrierHistory, identityKeys, IdentityRecorder, type IdentityKeys } from '../../src/identity/index.js';
import { runIngest, type IngestFiles } from '../../src/ingest/run.js';
import { sampleSourceAsOf, writeSampleFiles } from '../../src/ingest/sample.js';
import { redisKeys, type RedisKeys } from '../../src/store/keys.js';
import { createRedis } from '../../src/redis/connection.js';
import { deleteByPrefix } from '../../src/redis/delete-by-prefix.js';
import { keysUnder } from '../helpers/keys-under.js';
import { testRedisTarget } from '../helpers/harness.js';

const redis = createRedis(testRedisTarget(), 'background');
const prefixes: string[] = [];
let dir = '';

beforeAll(async () => { dir = await mkdtemp(join(tmpdir(), 'ce-identity-it-')); });
afterEach(async () => { for (const prefix of prefixes.splice(0)) await deleteByPrefix(redis, prefix); });
afterAll(async () => { redis.disconnect(); await rm(dir, { recursive: true, force: true }); });

function fresh(): { prefix: string; keys: RedisKeys; identity: IdentityKeys } {
  const prefix = `test:${Math.random().toString(36).slice(2, 10)}:`;
  prefixes.push(prefix);
  return { prefix, keys: redisKeys(prefix), identity: identityKeys(prefix) };
}

/** The census as header + rows of cells (the sample's rows without quotes are the ones edited). */
async function readCensus(file: string): Promise<{ header: string[]; rows: string[][] }> {
  const [head, ...lines] = (await readFile(file, 'utf8')).split('\n').filter((line) => line.length > 0);
  return { header: (head ?? '').split(','), rows: lines.map((line) => line.split(',')) };
}

async function writeCensus(file: string, census: { header: string[]; rows: string[][] }): Promise<void> {
  await writeFile(file, `${[census.header, ...census.rows].map((cells) => cells.join(',')).join('\n')}\n`);
}

async function ingest(redisKeysOf: RedisKeys, identity: IdentityKeys, files: IngestFiles, nowMs: number) {
  return runIngest(redis, redisKeysOf, {
    files, asOf: 'now', sourceAsOf: sampleSourceAsOf(nowMs), nowMs, force: true, useRedisDnu: false, graceMs: 0,
    identity: new IdentityRecorder(redis, identity),
  });
}

describe('identity history', () => {
  it('records only planted changes across three ingests, with old and new values and dates; survives retirement', async () => {
    const { prefix, keys, identity } = fresh();
    const nowMs = Date.now();
    const files = await writeSampleFiles(join(dir, 'three'), nowMs);
    const census = await readCensus(files.census);
    const col = (name: string) => census.header.findIndex((h) => h.trim().toUpperCase() === name);
    const [dotCol, phoneCol, emailCol, streetCol, prefixCol, docketCol] =
      ['DOT_NUMBER', 'PHONE', 'EMAIL_ADDRESS', 'PHY_STREET', 'DOCKET1PREFIX', 'DOCKET1'].map(col);
    const target = census.rows.find((cells) => cells.length === census.header.length && cells[prefixCol!] === 'MC' && cells[docketCol!] !== '');
    if (!target) throw new Error('sample census has no plain MC row');
    const mc = String(Number(target[docketCol!]));
    const dot = String(Number(target[dotCol!]));

    const first = await ingest(keys, identity, files, nowMs);
    expect(first.identity).toEqual({ changes: 0, carriers: 0 });
    expect(await carrierHistory({ redis, keys, identityKeys: identity }, mc)).toEqual({ mc_number: mc, carriers: [{ dot_number: dot, changes: [] }] });

    // Second census: new phone (reformatted digits count, formatting alone does not) and new email.
    const oldPhone = target[phoneCol!]!.replace(/\D/g, '');
    target[phoneCol!] = '(602) 555-0199';
    target[emailCol!] = 'Dispatch@Fresh-Carrier.example';
    await writeCensus(files.census, census);
    const second = await ingest(keys, identity, files, nowMs + 1000);
    expect(second.identity).toEqual({ changes: 2, carriers: 1 });

    // Third census: the phone written differently but the same digits (no change), the street changed.
    target[phoneCol!] = '602.555.0199';
    const oldStreet = target[streetCol!]!;
    target[streetCol!] = '1 NEW DROP ST';
    await writeCensus(files.census, census);
    const third = await ingest(keys, identity, files, nowMs + 2000);
    expect(third.identity).toEqual({ changes: 1, carriers: 1 });

    const view = await carrierHistory({ redis, keys, identityKeys: identity }, mc);
    const changes = view?.carriers[0]?.changes ?? [];
    expect(changes.map(({ field, kind, old, new: now, snapshot }) => ({ field, kind, old, new: now, snapshot }))).toEqual([
      { field: 'phone', kind: 'contact', old: oldPhone, new: '6025550199', snapshot: second.version },
      { field: 'email', kind: 'contact', old: expect.any(String), new: 'dispatch@fresh-carrier.example', snapshot: second.version },
      { field: 'physical_address', kind: 'address', old: null, new: expect.stringContaining('1 NEW DROP ST'), snapshot: third.version },
    ]);
    expect(oldStreet).not.toBe('1 NEW DROP ST');
    for (const change of changes) expect(change.seen_on).toMatch(/^\d{4}-\d{2}-\d{2}$/);

    // The first two snapshots are retired and removed (grace 0); the history is not under any snapshot key.
    expect([...second.removedVersions, ...third.removedVersions]).toEqual(expect.arrayContaining([first.version, second.version]));
    expect((await keysUnder(redis, `${prefix}snapshot:${first.version}`)).length).toBe(0);
    expect((await keysUnder(redis, `${prefix}snapshot:${second.version}`)).length).toBe(0);
    expect((await carrierHistory({ redis, keys, identityKeys: identity }, mc))?.carriers[0]?.changes).toHaveLength(3);
  });

  it('an aborted ingest records no change: the next one sees it again', async () => {
    const { keys, identity } = fresh();
    const nowMs = Date.now();
    const files = await writeSampleFiles(join(dir, 'abort'), nowMs);
    await ingest(keys, identity, files, nowMs);
    const census = await readCensus(files.census);
    const phoneCol = census.header.findIndex((h) => h.trim().toUpperCase() === 'PHONE');
    const row = census.rows.find((cells) => cells.length === census.header.length)!;
    row[phoneCol] = '4805550100';
    const healthy = census.rows.slice();
    // A census that shrinks beyond the guard is refused after the pass (the identity chunk was already compared).
    await writeCensus(files.census, { header: census.header, rows: [row] });
    const recorder = new IdentityRecorder(redis, identity);
    await expect(runIngest(redis, keys, {
      files, asOf: 'now', sourceAsOf: sampleSourceAsOf(nowMs), nowMs: nowMs + 1000, useRedisDnu: false, identity: recorder,
    })).rejects.toThrow();
    await writeCensus(files.census, { header: census.header, rows: healthy });
    const again = await ingest(keys, identity, files, nowMs + 2000);
    expect(again.identity?.changes).toBeGreaterThanOrEqual(1);
  });
});
