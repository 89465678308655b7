// What the image runs, checked without Docker: `npm run build`'s two steps into a temp dir, laid out like the
// image (/app/dist, /app/bin, /app/node_modules), whose node_modules holds ONLY the production dependencies
// (symlinks, so their own dependencies still resolve). If compiled code imported tsx, esbuild or typescript, or
// read a file the build did not copy (Lua scripts, the OpenAPI document, the version), this fails.
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, symlink, mkdir, cp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { deleteByPrefix } from '../../src/redis/delete-by-prefix.js';
import { randomPrefix } from '../helpers/harness.js';
import { freePort } from '../helpers/private-redis.js';

const run = promisify(execFile);
const repo = new URL('../../', import.meta.url).pathname;
const prefix = randomPrefix();
let app: string;

beforeAll(async () => {
  app = await mkdtemp(join(tmpdir(), 'ce-image-'));
  // The same tsc emit as `npm run build`, without the type check (that is `npm run typecheck`'s job, and slow).
  await run(process.execPath, [join(repo, 'node_modules/typescript/bin/tsc'), '-p', join(repo, 'tsconfig.build.json'), '--noCheck', '--outDir', join(app, 'dist')]);
  await run(process.execPath, [join(repo, 'scripts/build-assets.mjs'), join(app, 'dist')]);
  await cp(join(repo, 'bin'), join(app, 'bin'), { recursive: true });
  const pkg = JSON.parse(await readFile(join(repo, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  await mkdir(join(app, 'node_modules'));
  for (const name of Object.keys(pkg.dependencies)) {
    if (name.startsWith('@')) await mkdir(join(app, 'node_modules', name.split('/')[0] ?? ''), { recursive: true });
    await symlink(join(repo, 'node_modules', name), join(app, 'node_modules', name));
  }
}, 180_000);

afterAll(async () => {
  if (app) await rm(app, { recursive: true, force: true });
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  await deleteByPrefix(redis, prefix);
  redis.disconnect();
});

const env = () => ({ ...process.env, REDIS_PREFIX: prefix, LOG_LEVEL: 'info', NODE_OPTIONS: '' });

describe('compiled build (what the image runs)', () => {
  it('ships no TypeScript tooling among the production dependencies', async () => {
    const pkg = JSON.parse(await readFile(join(repo, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    for (const tool of ['tsx', 'typescript', 'esbuild', 'ts-node']) expect(Object.keys(pkg.dependencies)).not.toContain(tool);
  });

  it('the CLI runs from dist/ through bin/ and writes with Lua-free and Lua paths alike', async () => {
    const version = await run(process.execPath, [join(app, 'bin/carrier-eligibility.js'), '--version'], { env: env() });
    expect(version.stdout.trim()).toBe(JSON.parse(await readFile(join(repo, 'package.json'), 'utf8')).version);
    const created = await run(process.execPath, [join(app, 'bin/carrier-eligibility.js'), 'keys', 'create', '--account', 'image-test', '--scopes', 'eligibility'], { env: env() });
    expect(JSON.parse(created.stdout)).toMatchObject({ key: expect.stringMatching(/^cek_/) });
  });

  it('node dist/src/main.js serves health, the OpenAPI document and a (degraded) verdict, then stops on SIGTERM', async () => {
    const created = await run(process.execPath, [join(app, 'bin/carrier-eligibility.js'), 'keys', 'create', '--account', 'image-test', '--scopes', 'eligibility'], { env: env() });
    const { key } = JSON.parse(created.stdout) as { key: string };
    const port = await freePort();
    const child = spawn(process.execPath, ['dist/src/main.js'], {
      cwd: app, env: { ...env(), PORT: String(port), HOST: '127.0.0.1', ROLE: 'api' }, stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      await expect.poll(() => output.includes('"listening"'), { timeout: 20_000, interval: 50 }).toBe(true);
      const base = `http://127.0.0.1:${port}`;
      const health = await fetch(`${base}/v1/health`);
      expect(health.status).toBe(200);
      expect(await health.json()).toMatchObject({ version: expect.any(String), redis: 'up' });
      const openapi = await fetch(`${base}/v1/openapi.json`);
      expect((await openapi.json()) as { openapi: string }).toMatchObject({ openapi: expect.stringMatching(/^3\.1/) });
      // The budget draw is a Lua script read from dist/src/lua: a verdict (degraded, no snapshot here) proves it loaded.
      const verdict = await fetch(`${base}/v1/eligibility`, { method: 'POST', headers: { 'x-api-key': key }, body: '{"mc_number":"100001"}' });
      expect(verdict.status).toBe(200);
      expect(await verdict.json()).toMatchObject({ eligible: false });
      expect(verdict.headers.get('ratelimit')).toMatch(/r=\d+/);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });
});
