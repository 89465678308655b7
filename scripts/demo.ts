// `npm run demo`: the newcomer's one command. Ingests the bundled sample files, publishes the default rule set,
// issues a demo key (expires in 24 h), starts the service and prints curls that work as printed.
//
// Safety: by default it runs its OWN redis-server (free port, nothing persisted, the listpack setting the ingest
// wants given on its command line) even when a Redis answers on 6379, and stops it on exit — so it can never
// overwrite a real snapshot or touch a server's settings. With REDIS_URL set it uses that Redis only if the Redis
// holds nothing but demo data: keys under its own prefix `ce-demo:` carrying its ownership marker (or no keys at
// all); it never runs CONFIG SET there (it refuses instead when the ingest would want to), and deletes its keys
// on exit.
import { spawn, type ChildProcess } from 'node:child_process';
import { hostname } from 'node:os';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';
import { startApp, type RunningApp } from '../src/app.js';
import { KeyAdmin } from '../src/auth/key-store.js';
import { loadConfig } from '../src/config.js';
import { DEMO_CARRIERS, seedSample } from '../src/ingest/sample.js';
import { createLogger } from '../src/log.js';
import { createRedis } from '../src/redis/connection.js';
import { deleteByPrefix } from '../src/redis/delete-by-prefix.js';
import { redisKeys } from '../src/store/keys.js';
import { ensureRuleSet } from '../src/store/rulesets.js';

/** The prefix the demo owns on a Redis it did not start; nothing outside it is ever written. */
const DEMO_PREFIX = 'ce-demo:';
const MARKER_KEY = `${DEMO_PREFIX}demo:owner`;
const DAY_MS = 24 * 3600 * 1000;
/** The ingest wants hash-max-listpack-value ≥ 256 and would CONFIG SET it; the demo never does that on a shared server. */
const LISTPACK_VALUE = 256;
/** More keys than this cannot be a demo-only Redis; refuse without scanning. */
const MAX_KEYS_TO_SCAN = 200_000;

class DemoRefusal extends Error {}

async function answers(url: string): Promise<boolean> {
  const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 1000 });
  probe.on('error', () => undefined);
  try {
    await probe.connect();
    return (await probe.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}

async function freePort(preferred: number): Promise<number> {
  const tryPort = (port: number) => new Promise<number | null>((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(null));
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(address && typeof address === 'object' ? address.port : null));
    });
  });
  return (await tryPort(preferred)) ?? (await tryPort(0)) ?? preferred;
}

async function privateRedis(): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort(0);
  const child = spawn('redis-server', [
    '--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no',
    '--hash-max-listpack-value', String(LISTPACK_VALUE),
  ], { stdio: 'ignore' });
  const failed = new Promise<never>((_, reject) => child.once('error', () => reject(new DemoRefusal(
    'redis-server is not installed: `apt-get install -y redis-server` (the demo runs its own private Redis), '
    + `or point REDIS_URL at an empty Redis (the demo then uses only the prefix ${DEMO_PREFIX})`,
  ))));
  const url = `redis://127.0.0.1:${port}`;
  for (let attempt = 0; attempt < 100; attempt++) {
    if (await Promise.race([answers(url), failed])) return { url, child };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill('SIGTERM');
  throw new DemoRefusal('started redis-server but it did not answer');
}

/**
 * Checks a Redis the demo did not start before writing anything: every key must be the demo's own (prefix and
 * marker), and the server setting the ingest wants must already be in place. Then claims it with the marker.
 */
async function claimSharedRedis(url: string): Promise<void> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 2000 });
  redis.on('error', () => undefined);
  try {
    await redis.connect().catch(() => {
      throw new DemoRefusal(`no Redis answers at REDIS_URL (${redactUrl(url)})`);
    });
    const size = await redis.dbsize();
    if (size > MAX_KEYS_TO_SCAN) throw new DemoRefusal(`REDIS_URL holds ${size} keys: not a demo Redis; refusing to write there`);
    let cursor = '0';
    do {
      const [next, found] = await redis.scan(cursor, 'COUNT', 1000);
      cursor = next;
      const foreign = found.find((key) => !key.startsWith(DEMO_PREFIX));
      if (foreign !== undefined) {
        throw new DemoRefusal(`REDIS_URL holds data that is not the demo's (e.g. key "${foreign}"); refusing to write there. `
          + 'Unset REDIS_URL and the demo runs its own private Redis');
      }
    } while (cursor !== '0');
    if (size > 0 && (await redis.exists(MARKER_KEY)) === 0) {
      throw new DemoRefusal(`REDIS_URL holds keys under ${DEMO_PREFIX} that no demo claimed (no ${MARKER_KEY}); refusing to touch them`);
    }
    // CONFIG may be disabled (managed Redis): then the ingest cannot change it either, and only warns.
    const setting = await redis.config('GET', 'hash-max-listpack-value').then((reply) => Number((reply as string[])[1]), () => null);
    if (setting !== null && setting < LISTPACK_VALUE) {
      throw new DemoRefusal(`REDIS_URL has hash-max-listpack-value ${setting}; the sample ingest would raise it to ${LISTPACK_VALUE} `
        + 'server-wide and the demo never changes server settings. Unset REDIS_URL (private Redis) or set it yourself');
    }
    await redis.set(MARKER_KEY, JSON.stringify({ by: 'npm run demo', host: hostname(), pid: process.pid, at: new Date().toISOString() }), 'PX', DAY_MS);
  } finally {
    redis.disconnect();
  }
}

function redactUrl(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}

async function main(): Promise<void> {
  let ownRedis: ChildProcess | null = null;
  let app: RunningApp | null = null;
  const shared = process.env.REDIS_URL !== undefined && process.env.REDIS_URL !== '';
  // Waits (≤ 2 s) for the private redis-server to be gone, so "stopped on exit" is true when the demo returns.
  const stopRedis = async () => {
    const child = ownRedis;
    ownRedis = null;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 2000))]);
  };
  try {
    if (shared) {
      await claimSharedRedis(process.env.REDIS_URL ?? '');
      process.env.REDIS_PREFIX = DEMO_PREFIX;
      process.stdout.write(`Using REDIS_URL (${redactUrl(process.env.REDIS_URL ?? '')}) under the demo's own prefix ${DEMO_PREFIX}; its keys are removed on exit.\n`);
    } else {
      const started = await privateRedis();
      ownRedis = started.child;
      process.env.REDIS_URL = started.url;
      process.env.REDIS_PREFIX ??= 'ce:';
      process.stdout.write(`Started a private Redis at ${started.url} for the demo (nothing persisted; stopped on exit).\n`);
    }
    process.env.PORT = String(await freePort(Number(process.env.PORT ?? 8080)));
    process.env.LOG_LEVEL ??= 'warn';
    const config = loadConfig(process.env);

    const redis = createRedis(config.REDIS_URL, 'background');
    const keys = redisKeys(config.REDIS_PREFIX);
    process.stdout.write('Ingesting the sample files (real FMCSA / OFAC / SAM layouts)…\n');
    await seedSample(redis, keys, { quiet: true });
    await ensureRuleSet(redis, keys);
    const { key: plaintext } = await new KeyAdmin(redis, keys).issue({
      account: 'demo', label: 'npm run demo', scopes: ['eligibility', 'batch'], rate_per_minute: 10_000,
      expires_at: new Date(Date.now() + DAY_MS).toISOString(),
    });
    redis.disconnect();

    app = await startApp(config, createLogger(config.LOG_LEVEL, config.ROLE));
    printWelcome(`http://127.0.0.1:${app.http?.port ?? config.PORT}`, plaintext, config.REDIS_URL, config.REDIS_PREFIX);
  } catch (error) {
    await app?.stop().catch(() => undefined);
    await stopRedis();
    throw error;
  }

  const running = app;
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await running.stop().catch(() => undefined);
    if (shared) {
      const redis = new Redis(process.env.REDIS_URL ?? '', { maxRetriesPerRequest: 1 });
      redis.on('error', () => undefined);
      await deleteByPrefix(redis, DEMO_PREFIX).catch(() => undefined);
      redis.disconnect();
    }
    await stopRedis();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}

function printWelcome(base: string, plaintext: string, redisUrl: string, prefix: string): void {
  const curl = (mc: string) => `curl -s ${base}/v1/eligibility -H 'x-api-key: ${plaintext}' -d '{"mc_number":"${mc}"}'`;
  const lines = [
    '',
    `Carrier Eligibility Decision Service is listening on ${base}`,
    `Demo API key (scopes eligibility,batch; expires in 24 h; shown once): ${plaintext}`,
    '',
    'Try:',
    `  ${curl(DEMO_CARRIERS[0]?.mc ?? '100001')}`,
    `  curl -s ${base}/v1/health`,
    '',
    'More sample carriers (MC → expected tier: reasons):',
    ...DEMO_CARRIERS.map((carrier) => `  ${carrier.mc.padEnd(8)} → ${String(carrier.tier)}: ${carrier.reasons.join(', ') || '(none)'}${carrier.note ? `  — ${carrier.note}` : ''}`),
    '',
    'A roster batch:',
    `  curl -s ${base}/v1/batch -H 'x-api-key: ${plaintext}' -d '{"items":[{"mc":"${DEMO_CARRIERS[0]?.mc ?? '100001'}","ref":"a"},{"mc":"MC-${DEMO_CARRIERS[1]?.mc ?? '200001'}","ref":"b"},{"ref":"no mc"}]}'`,
    '',
    `The CLI against this demo: REDIS_URL=${redactUrl(redisUrl)} REDIS_PREFIX=${prefix} npm run cli -- data status`,
    'Ctrl-C stops it.',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`demo: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
