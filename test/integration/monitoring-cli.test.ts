// The monitoring CLI as operators run it (child processes, own prefix): a key with the monitoring scope, a
// watch-list import (read back from the store), and events tail with its resumable cursor.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { encodeCursor, EventStore } from '../../src/monitoring/event-store.js';
import { WatchListStore } from '../../src/monitoring/watchlist.js';
import { screeningEvent } from '../../src/monitoring/events-model.js';
import { monitoringKeys } from '../../src/monitoring/keys.js';
import { createRedis } from '../../src/redis/connection.js';
import { deleteByPrefix } from '../../src/redis/delete-by-prefix.js';
import { runCli } from '../helpers/cli.js';
import { randomPrefix, testRedisTarget } from '../helpers/harness.js';

const redis = createRedis(testRedisTarget(), 'background');
const prefix = randomPrefix();

afterAll(async () => {
  await deleteByPrefix(redis, prefix);
  redis.disconnect();
});

it('keys create accepts the monitoring scope; watch import/list and events tail work end to end', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'ce-watch-'));
  try {
    const file = join(dir, 'roster.csv');
    await writeFile(file, 'mc,ref\nMC-000123,lane 1\n456\n\n123\n');
    const events = new EventStore(redis, monitoringKeys(prefix), 86_400_000);
    await events.append([1, 2].map((n) => ({ account: 'acme', event: screeningEvent('screening.degraded', ['data_stale'], { id: `e${n}`, observedMs: Date.now(), rulesetVersion: 1, dataAsOf: null }) })));
    const [firstStored] = await events.after('acme', null, 1);
    // One round of processes (each CLI start costs seconds on a busy machine).
    const [key, imported, tail, resumed] = await Promise.all([
      runCli(prefix, 'keys', 'create', '--account', 'acme', '--scopes', 'monitoring'),
      runCli(prefix, 'watch', 'import', file, '--account', 'acme'),
      runCli(prefix, 'events', 'tail', '--account', 'acme', '--limit', '1'),
      runCli(prefix, 'events', 'tail', '--account', 'acme', '--after', encodeCursor(firstStored!.streamId)),
    ]);
    expect(JSON.parse(key.stdout).record.scopes).toEqual(['monitoring']);
    expect(JSON.parse(imported.stdout)).toEqual({ account: 'acme', added: 2, already_watched: 0, watched: 2 });
    const first = JSON.parse(tail.stdout.trim()) as { cursor: string; event: { id: string } };
    expect(first).toEqual({ cursor: encodeCursor(firstStored!.streamId), event: expect.objectContaining({ id: 'e1' }) });
    expect(resumed.stdout.trim().split('\n').map((line) => (JSON.parse(line) as { event: { id: string } }).event.id)).toEqual(['e2']);
    expect((await new WatchListStore(redis, monitoringKeys(prefix)).page('acme', null, 10)).items)
      .toMatchObject([{ mc: '123', ref: 'lane 1' }, { mc: '456', ref: null }]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
