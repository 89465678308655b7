// The one place that reads process.env: every setting, its default and its meaning, validated with zod.
// loadConfig() reports every problem at once so an operator fixes a bad deployment in one pass.
import { z } from 'zod';

const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

export const configSchema = z.object({
  PORT: int(0, 65535).default(8080).describe('HTTP port of the API tier (0 picks a free port)'),
  HOST: z.string().min(1).default('0.0.0.0').describe('Interface the API tier binds to'),
  METRICS_PORT: int(0, 65535).optional()
    .describe('When set, /metrics is served only on this port (own listener, same HOST), so the network can open it to monitoring alone; unset: on PORT'),
  REDIS_URL: z.string().regex(/^rediss?:\/\//, 'must start with redis:// or rediss://').default('redis://127.0.0.1:6379')
    .describe('Redis connection URL'),
  REDIS_PREFIX: z.string().min(1).max(64).regex(/^[A-Za-z0-9:_.-]+$/, 'letters, digits and : _ . - only').default('ce:')
    .describe('Prefix of every Redis key this service owns'),
  REDIS_COMMAND_TIMEOUT_MS: int(10, 10_000).default(150)
    .describe('Request-path Redis commands that take longer fail, and the verdict is degraded'),
  RATE_PER_MINUTE_DEFAULT: int(1, 10_000_000).default(600).describe('Budget of a key created without --rate-per-minute'),
  MAX_DATA_AGE_SECONDS: int(60, 365 * 24 * 3600).default(172_800)
    .describe('A carrier snapshot older than this makes every verdict degraded (data_stale)'),
  STATE_POLL_MS: int(50, 1000).default(250)
    .describe('How often a replica re-reads the snapshot pointer, rule set and key epoch (bounds propagation time)'),
  CARRIER_CACHE_MAX: int(1, 10_000_000).default(200_000).describe('Entries in the in-process carrier LRU'),
  ROLE: z.enum(['api', 'worker', 'both']).default('both').describe('api serves HTTP, worker screens batch rows, both does both'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info').describe('pino log level'),
  SHUTDOWN_GRACE_MS: int(0, 120_000).default(10_000).describe('SIGTERM: how long in-flight work may take before exit'),
  BATCH_JOB_DEADLINE_SECONDS: int(10, 7 * 24 * 3600).default(3600)
    .describe('A batch job not finished by then fails; unscreened rows become not_screened'),
  BATCH_RETENTION_SECONDS: int(60, 90 * 24 * 3600).default(7 * 24 * 3600).describe('Finished jobs and reports are kept this long'),
  BATCH_BUDGET_HEADROOM: z.coerce.number().min(0).max(0.9).default(0.2)
    .describe('Share of a key\'s per-minute budget that batch rows leave for the same key\'s single checks'),
  BATCH_CLAIM_IDLE_MS: int(100, 600_000).default(5000)
    .describe('A batch chunk pending this long on a silent worker is claimed by another (XAUTOCLAIM)'),
  WORKER_CONCURRENCY: int(1, 64).default(4).describe('Chunks a worker process screens at once'),
  DECISION_RETENTION_DAYS: int(1, 3650).default(30)
    .describe('Decision records are kept in Redis this many days; older ones live only in exported archives'),
  DECISION_RECORDS: z.enum(['on', 'off']).default('on')
    .describe('Benchmarks only: off answers without writing decision records. Production must leave it on'),
  DECISION_SIGNING_KEY: z.string().optional()
    .describe('Ed25519 private key (PEM, or base64 PKCS#8 DER) that signs export manifests; needed by decisions export'),
});

export type Config = Readonly<z.infer<typeof configSchema>>;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  ${problems.join('\n  ')}`);
    this.name = 'ConfigError';
  }
}

/** Pure: parses an environment map; throws ConfigError listing every problem. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const known = Object.fromEntries(
    Object.keys(configSchema.shape).map((name) => [name, env[name] === '' ? undefined : env[name]]),
  );
  const parsed = configSchema.safeParse(known);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`));
  }
  return Object.freeze(parsed.data);
}
