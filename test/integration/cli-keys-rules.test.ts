// The operator CLI as operators run it: a child process with the service's environment config.
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startTestApp, type TestApp } from '../helpers/harness.js';

let t: TestApp;

const cli = (...args: string[]) => runCli(t.config.REDIS_PREFIX, ...args);

beforeAll(async () => {
  t = await startTestApp();
});

afterAll(async () => {
  await t.stop();
});

describe('carrier-eligibility keys', () => {
  it('creates a key that works at once, lists it without secrets, and disables/enables it', async () => {
    const created = await cli('keys', 'create', '--account', 'acme', '--scopes', 'eligibility,batch', '--rate-per-minute', '42', '--label', 'dispatch');
    expect(created.code).toBe(0);
    const { key, record } = JSON.parse(created.stdout) as { key: string; record: Record<string, unknown> };
    expect(key).toMatch(/^cek_[a-z0-9]{12}_[A-Za-z0-9_-]{43}$/);
    expect(record).toMatchObject({ account: 'acme', scopes: ['eligibility', 'batch'], rate_per_minute: 42, status: 'active', label: 'dispatch', expires_at: null });
    expect(JSON.stringify(record)).not.toContain(key.split('_').slice(2).join('_'));

    const stored = await t.redis.hgetall(t.keys.apiKey(String(record.id)));
    expect(JSON.stringify(stored)).not.toContain(key.slice(17));
    expect(stored.secret_sha256).toMatch(/^[0-9a-f]{64}$/);

    const listed = JSON.parse((await cli('keys', 'list')).stdout) as Array<Record<string, unknown>>;
    expect(listed.map((entry) => entry.id)).toContain(record.id);
    expect(JSON.stringify(listed)).not.toContain('secret');

    const disabled = await cli('keys', 'disable', String(record.id));
    expect(JSON.parse(disabled.stdout).status).toBe('inactive');
    expect(JSON.parse((await cli('keys', 'enable', String(record.id))).stdout).status).toBe('active');
  });

  it('fails with one clear line and a non-zero exit on bad input', async () => {
    for (const args of [
      ['keys', 'create', '--account', 'a', '--scopes', 'root'],
      ['keys', 'create', '--scopes', 'batch'],
      ['keys', 'create', '--account', 'a', '--scopes', 'batch', '--rate-per-minute', '-5'],
      ['keys', 'create', '--account', 'a', '--scopes', 'batch', '--expires-at', 'someday'],
      ['keys', 'disable', 'nosuchkey'],
    ]) {
      const result = await cli(...args);
      expect(result.code, args.join(' ')).not.toBe(0);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
    }
  });
});

describe('carrier-eligibility rules', () => {
  it('publishes versions in sequence and shows the current one', async () => {
    const first = JSON.parse((await cli('rules', 'publish', '--default')).stdout) as { version: number };
    const file = join(tmpdir(), `rules-${Date.now()}.json`);
    const custom = JSON.parse((await cli('rules', 'show')).stdout).rules;
    custom.insurance.min_bipd_general_usd = 1_000_000;
    await writeFile(file, JSON.stringify(custom));
    const second = JSON.parse((await cli('rules', 'publish', file)).stdout) as { version: number };
    expect(second.version).toBe(first.version + 1);
    const shown = JSON.parse((await cli('rules', 'show')).stdout);
    expect(shown).toMatchObject({ version: second.version, rules: { insurance: { min_bipd_general_usd: 1_000_000 } } });
  });

  it('refuses an invalid rule set with one line naming the problem, and keeps the current one', async () => {
    const before = JSON.parse((await cli('rules', 'show')).stdout).version;
    const file = join(tmpdir(), `bad-rules-${Date.now()}.json`);
    await writeFile(file, JSON.stringify({ insurance: { min_bipd_general_usd: 'lots' } }));
    const result = await cli('rules', 'publish', file);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(file);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse((await cli('rules', 'show')).stdout).version).toBe(before);
  });
});
