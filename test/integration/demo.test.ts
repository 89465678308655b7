// `npm run demo` is safe to run anywhere: by default it uses a private redis-server of its own even when 6379
// answers; pointed at a Redis (REDIS_URL) it writes only if that Redis holds nothing but the demo's own data, never
// changes server settings there, and removes its keys on exit.
import { spawn, type ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { PrivateRedis } from '../helpers/private-redis.js';

const servers: PrivateRedis[] = [];
const demos: ChildProcess[] = [];

afterEach(() => {
  for (const demo of demos.splice(0)) if (demo.exitCode === null && demo.signalCode === null) demo.kill('SIGKILL');
});

afterAll(async () => {
  for (const server of servers) await server.stop();
});

async function privateServer(): Promise<{ server: PrivateRedis; client: Redis }> {
  const server = await PrivateRedis.start();
  servers.push(server);
  const client = new Redis(server.url);
  return { server, client };
}

interface Demo { child: ChildProcess; stdout: () => string; stderr: () => string; exited: Promise<number | null> }

function startDemo(redisUrl: string | undefined): Demo {
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: '0', LOG_LEVEL: 'warn' };
  delete env.REDIS_URL;
  delete env.REDIS_PREFIX;
  if (redisUrl !== undefined) env.REDIS_URL = redisUrl;
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/demo.ts'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  demos.push(child);
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** Runs the first printed curl (a single check) with fetch; returns the verdict. */
async function firstCheck(output: string): Promise<{ status: number; body: { eligible?: boolean } }> {
  const match = /curl -s (http:\/\/\S+\/v1\/eligibility) -H 'x-api-key: (\S+)' -d '(\{[^']*\})'/.exec(output);
  expect(match).not.toBeNull();
  const response = await fetch(match?.[1] ?? '', { method: 'POST', headers: { 'x-api-key': match?.[2] ?? '' }, body: match?.[3] });
  return { status: response.status, body: await response.json() as { eligible?: boolean } };
}

describe('npm run demo', () => {
  it('refuses a Redis that holds data of another prefix, and writes nothing there', async () => {
    const { client, server } = await privateServer();
    await client.set('prod:keys:epoch', '7');
    const demo = startDemo(server.url);
    expect(await demo.exited).toBe(1);
    expect(demo.stderr().trim().split('\n')).toHaveLength(1);
    expect(demo.stderr()).toMatch(/not the demo's .*refusing to write/);
    expect(await client.keys('*')).toEqual(['prod:keys:epoch']);
    client.disconnect();
  });

  it('refuses (rather than CONFIG SET) a Redis whose listpack setting the ingest would raise', async () => {
    const { client, server } = await privateServer();
    await client.config('SET', 'hash-max-listpack-value', '64');
    const demo = startDemo(server.url);
    expect(await demo.exited).toBe(1);
    expect(demo.stderr()).toMatch(/never changes server settings/);
    expect(await client.config('GET', 'hash-max-listpack-value')).toEqual(['hash-max-listpack-value', '64']);
    expect(await client.dbsize()).toBe(0);
    client.disconnect();
  });

  it('by default runs its own private Redis (even though 6379 answers), serves the printed curl, cleans up', async () => {
    const demo = startDemo(undefined);
    await expect.poll(() => demo.stdout().includes('Ctrl-C stops it.') || demo.child.exitCode !== null, { timeout: 45_000, interval: 100 }).toBe(true);
    expect(demo.stderr()).toBe('');
    const url = /private Redis at (redis:\/\/127\.0\.0\.1:(\d+))/.exec(demo.stdout());
    expect(Number(url?.[2])).not.toBe(6379);
    expect(await firstCheck(demo.stdout())).toEqual({ status: 200, body: expect.objectContaining({ eligible: true }) });
    expect(demo.stdout()).toMatch(/expires in 24 h/);
    demo.child.kill('SIGTERM');
    expect(await demo.exited).toBe(0);
    const probe = new Redis(url?.[1] ?? '', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on('error', () => undefined);
    await expect(probe.connect()).rejects.toBeDefined();
    probe.disconnect();
  }, 60_000);

  it('on an empty Redis given by REDIS_URL: only its own prefix, a marker, an expiring key; all removed on exit', async () => {
    const { client, server } = await privateServer();
    await client.config('SET', 'hash-max-listpack-value', '256');
    const demo = startDemo(server.url);
    await expect.poll(() => demo.stdout().includes('Ctrl-C stops it.') || demo.child.exitCode !== null, { timeout: 45_000, interval: 100 }).toBe(true);
    expect(await firstCheck(demo.stdout())).toEqual({ status: 200, body: expect.objectContaining({ eligible: true }) });
    const keys = await client.keys('*');
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.filter((key) => !key.startsWith('ce-demo:'))).toEqual([]);
    expect(await client.pttl('ce-demo:demo:owner')).toBeGreaterThan(0);
    demo.child.kill('SIGTERM');
    expect(await demo.exited).toBe(0);
    expect(await client.dbsize()).toBe(0);
    expect(await client.config('GET', 'hash-max-listpack-value')).toEqual(['hash-max-listpack-value', '256']);
    client.disconnect();
  }, 60_000);
});
