// Replicas apply do-not-use changes from the change log after the epoch they hold, not by reloading the whole
// list; a replica that fell behind a trimmed log reloads it whole. Runs in both projects (standalone, Cluster).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importDnu, removeDnu, type DnuEntry } from '../../src/ingest/dnu.js';
import { startTestApp, waitFor, type TestApp } from '../helpers/harness.js';

let t: TestApp;
const entry: DnuEntry = { reason: 'test', added_at: '2026-01-01T00:00:00Z', expires_at: null };

beforeAll(async () => {
  t = await startTestApp();
  await t.createKey();
});

afterAll(async () => {
  await t.stop();
});

const listed = (mc: string) => t.app.parts.state.doNotUse.has(mc, Date.now());

describe('incremental do-not-use changes', () => {
  it('applies an import of 1,200 rows and a removal in place, from the change log', async () => {
    await importDnu(t.redis, t.keys, new Map([['500000', entry]]));
    await waitFor(() => Promise.resolve(listed('500000')), Boolean, 3000);
    const list = t.app.parts.state.doNotUse;
    const rows = new Map(Array.from({ length: 1200 }, (_, i) => [String(600_000 + i), entry] as const));
    expect(await importDnu(t.redis, t.keys, rows)).toBe(1200);
    await waitFor(() => Promise.resolve(t.app.parts.state.doNotUse.size), (size) => size === 1201, 3000);
    expect(await removeDnu(t.redis, t.keys, '600000')).toBe(true);
    expect(await removeDnu(t.redis, t.keys, '600000')).toBe(false);
    await waitFor(() => Promise.resolve(listed('600000')), (value) => !value, 3000);
    // The same object throughout: changed in place, never rebuilt from a full reload.
    expect(t.app.parts.state.doNotUse).toBe(list);
    expect(listed('601199')).toBe(true);
    expect(await t.redis.hlen(t.keys.doNotUse)).toBe(1200);
  });

  it('reloads the whole list when the log no longer reaches back to its epoch', async () => {
    const state = t.app.parts.state;
    state.stop();
    const before = state.doNotUse;
    await importDnu(t.redis, t.keys, new Map([['700001', entry], ['700002', entry]]));
    await removeDnu(t.redis, t.keys, '600001');
    await t.redis.xtrim(t.keys.doNotUseLog, 'MAXLEN', 1);
    await state.poll();
    expect(state.doNotUse).not.toBe(before);
    expect(state.doNotUse.size).toBe(await t.redis.hlen(t.keys.doNotUse));
    expect(listed('700001') && listed('700002') && !listed('600001')).toBe(true);
  });
});
