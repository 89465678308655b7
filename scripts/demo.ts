// `npm run demo`: the newcomer's one command. Finds (or starts) a Redis, ingests the bundled sample files, publishes
// the default rule set, issues a demo key, starts the service and prints curls that work as printed.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';
import { startApp } from '../src/app.js';
import { generateApiKey, hashSecret } from '../src/auth/api-key.js';
import { KeyAdmin } from '../src/auth/key-store.js';
import { loadConfig } from '../src/config.js';
import { DEMO_CARRIERS, seedSample } from '../src/ingest/sample.js';
import { createLogger } from '../src/log.js';
import { createRedis } from '../src/redis/connection.js';
import { redisKeys } from '../src/store/keys.js';
import { ensureRuleSet } from '../src/store/rulesets.js';

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
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const failed = new Promise<never>((_, reject) => child.once('error', () => reject(new Error(
    'no Redis answers on 127.0.0.1:6379 and redis-server is not installed: `apt-get install -y redis-server` (or set REDIS_URL)',
  ))));
  const url = `redis://127.0.0.1:${port}`;
  for (let attempt = 0; attempt < 100; attempt++) {
    if (await Promise.race([answers(url), failed])) return { url, child };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('started redis-server but it did not answer');
}

async function main(): Promise<void> {
  let ownRedis: ChildProcess | null = null;
  if (!process.env.REDIS_URL && !(await answers('redis://127.0.0.1:6379'))) {
    const started = await privateRedis();
    ownRedis = started.child;
    process.env.REDIS_URL = started.url;
    process.stdout.write(`No Redis on 127.0.0.1:6379; started a private one at ${started.url} (nothing persisted).\n`);
  }
  process.env.PORT = String(await freePort(Number(process.env.PORT ?? 8080)));
  process.env.LOG_LEVEL ??= 'warn';
  const config = loadConfig(process.env);

  const redis = createRedis(config.REDIS_URL, 'background');
  const keys = redisKeys(config.REDIS_PREFIX);
  process.stdout.write('Ingesting the sample files (real FMCSA / OFAC / SAM layouts)…\n');
  await seedSample(redis, keys, { quiet: true });
  await ensureRuleSet(redis, keys);
  const { id, secret, plaintext } = generateApiKey();
  await new KeyAdmin(redis, keys).save({
    id, account: 'demo', label: 'npm run demo', scopes: ['eligibility', 'batch'], status: 'active', expires_at: null,
    rate_per_minute: 10_000, created_at: new Date().toISOString(), secret_sha256: hashSecret(secret),
  });
  redis.disconnect();

  const app = await startApp(config, createLogger(config.LOG_LEVEL, config.ROLE));
  const base = `http://127.0.0.1:${app.http?.port ?? config.PORT}`;
  const curl = (mc: string) => `curl -s ${base}/v1/eligibility -H 'x-api-key: ${plaintext}' -d '{"mc_number":"${mc}"}'`;
  const lines = [
    '',
    `Carrier Eligibility Decision Service is listening on ${base}`,
    `Demo API key (scopes eligibility,batch; shown once): ${plaintext}`,
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
    'Ctrl-C stops it.',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);

  const stop = async () => {
    await app.stop();
    ownRedis?.kill('SIGTERM');
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}

main().catch((error: unknown) => {
  process.stderr.write(`demo: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
