// LiveState.poll() against a real Redis: a poll asked while another is reading must not return with what that
// earlier read saw. Operators' tooling and the tests publish a rule set and then ask every replica state to poll;
// answering from the read already under way left `ruleset_unavailable` in force (a CI run failed on exactly that).
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { RedisClient } from '../../src/redis/connection.js';
import { LiveState } from '../../src/state/live-state.js';
import { connectedRequestPathClient, startTestApp, type TestApp } from '../helpers/harness.js';

let t: TestApp;
let client: RedisClient;
let state: LiveState;

beforeEach(async () => {
  t = await startTestApp();
  client = await connectedRequestPathClient(2000);
  state = new LiveState(client, t.keys, 60_000, pino({ level: 'silent' }));
});

afterEach(async () => {
  vi.restoreAllMocks();
  client.disconnect();
  await t.stop();
});

/** Holds the next MGET's reply until `release()`; `answered` resolves once Redis has replied to it. */
function holdNextRead(): { answered: Promise<void>; release: () => void } {
  const mget = client.mget.bind(client) as (...keys: string[]) => Promise<Array<string | null>>;
  let release!: () => void;
  const released = new Promise<void>((resolve) => { release = resolve; });
  let answer!: () => void;
  const answered = new Promise<void>((resolve) => { answer = resolve; });
  vi.spyOn(client, 'mget').mockImplementationOnce((async (...keys: string[]) => {
    const reply = await mget(...keys);
    answer();
    await released;
    return reply;
  }) as typeof client.mget);
  return { answered, release };
}

describe('LiveState.poll', () => {
  it('asked while a read is under way, resolves only after a read that saw what was written before the ask', async () => {
    const held = holdNextRead();
    const first = state.poll();
    await held.answered; // the first read has seen Redis without a rule set
    const version = await t.publishRules();
    const second = state.poll();
    held.release();
    await second;
    expect(state.ruleset?.version).toBe(version);
    await first;
  });

  it('shares one queued read among every caller that asks meanwhile, and reads again only once', async () => {
    const reads = vi.spyOn(client, 'mget');
    const first = state.poll();
    const second = state.poll();
    const third = state.poll();
    expect(third).toBe(second);
    expect(second).not.toBe(first);
    await Promise.all([first, second, third]);
    expect(reads).toHaveBeenCalledTimes(2);
    await state.poll(); // idle again: a fresh read of its own
    expect(reads).toHaveBeenCalledTimes(3);
  });
});
