// The one place that reads process.env: every setting, its default and its meaning, validated with zod.
// loadConfig() reports every problem at once so an operator fixes a bad deployment in one pass.
import { z } from 'zod';

const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

/** `host:port,host:port` → [{host, port}]; every bad entry is its own problem. */
const hostPortList = z.string().transform((value, ctx) => {
  const nodes: Array<{ host: string; port: number }> = [];
  for (const entry of value.split(',').map((part) => part.trim()).filter((part) => part !== '')) {
    const match = /^([A-Za-z0-9.-]+|\[[0-9A-Fa-f:]+\]):(\d{1,5})$/.exec(entry);
    const port = Number(match?.[2]);
    if (!match?.[1] || port < 1 || port > 65535) ctx.addIssue({ code: 'custom', message: `"${entry}" is not host:port` });
    else nodes.push({ host: match[1].replace(/^\[|\]$/g, ''), port });
  }
  if (nodes.length === 0) ctx.addIssue({ code: 'custom', message: 'lists no host:port' });
  return nodes;
});

/** Settings one REDIS_MODE needs, checked on the raw environment so they are listed with every other problem. */
function redisModeProblems(env: Record<string, string | undefined>): string[] {
  const set = (name: string) => env[name] !== undefined && env[name] !== '';
  const mode = env.REDIS_MODE || 'standalone';
  const problems: string[] = [];
  if (mode === 'sentinel') {
    if (!set('REDIS_SENTINELS')) problems.push('REDIS_SENTINELS: required when REDIS_MODE=sentinel');
    if (!set('REDIS_SENTINEL_NAME')) problems.push('REDIS_SENTINEL_NAME: required when REDIS_MODE=sentinel');
  }
  if (mode === 'cluster' && !set('REDIS_CLUSTER_NODES')) problems.push('REDIS_CLUSTER_NODES: required when REDIS_MODE=cluster');
  if (mode !== 'sentinel') {
    for (const name of ['REDIS_SENTINELS', 'REDIS_SENTINEL_NAME']) if (set(name)) problems.push(`${name}: only used when REDIS_MODE=sentinel`);
  }
  if (mode !== 'cluster' && set('REDIS_CLUSTER_NODES')) problems.push('REDIS_CLUSTER_NODES: only used when REDIS_MODE=cluster');
  return problems;
}

export const configSchema = z.object({
  PORT: int(0, 65535).default(8080).describe('HTTP port of the API tier (0 picks a free port)'),
  HOST: z.string().min(1).default('0.0.0.0').describe('Interface the API tier binds to'),
  HTTP_ENGINE: z.enum(['uws', 'node']).default('uws')
    .describe('uws: uWebSockets.js (native, fastest; needs Node 20, or Node 22/24 on glibc >= 2.38); node: node:http (no native code, strict framing; put this one behind a proxy that pipelines or forwards lenient framing). docs/http.md'),
  METRICS_PORT: int(0, 65535).optional()
    .describe('When set, /metrics is served only on this port (own listener, same HOST), so the network can open it to monitoring alone; unset: on PORT'),
  REDIS_URL: z.string().regex(/^rediss?:\/\//, 'must start with redis:// or rediss://').default('redis://127.0.0.1:6379')
    .describe('Redis connection URL'),
  REDIS_MODE: z.enum(['standalone', 'sentinel', 'cluster']).default('standalone')
    .describe('standalone: REDIS_URL names the server; sentinel: REDIS_SENTINELS + REDIS_SENTINEL_NAME; cluster: REDIS_CLUSTER_NODES (docs/redis.md)'),
  REDIS_SENTINELS: hostPortList.optional()
    .describe('sentinel mode: comma-separated host:port of the Sentinels (credentials and TLS of the data nodes come from REDIS_URL)'),
  REDIS_SENTINEL_NAME: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, 'letters, digits and . _ - only').optional()
    .describe('sentinel mode: the monitored master\'s name'),
  REDIS_CLUSTER_NODES: hostPortList.optional()
    .describe('cluster mode: comma-separated host:port of some cluster nodes (the rest are discovered; credentials and TLS come from REDIS_URL)'),
  REDIS_PREFIX: z.string().min(1).max(64).regex(/^[A-Za-z0-9:_.-]+$/, 'letters, digits and : _ . - only').default('ce:')
    .describe('Prefix of every Redis key this service owns'),
  REDIS_COMMAND_TIMEOUT_MS: int(10, 10_000).default(150)
    .describe('Request-path Redis commands that take longer fail, and the verdict is degraded'),
  RATE_PER_MINUTE_DEFAULT: int(1, 10_000_000).default(600).describe('Budget of a key created without --rate-per-minute'),
  API_CALL_RATE_PER_MINUTE: int(1, 10_000_000).default(1200)
    .describe('Per-key budget of every authenticated call other than an eligibility check (decision and batch reads, batch submission, watch list, webhooks, events); a key whose own rate is higher gets that'),
  AUTH_FAILURES_PER_MINUTE: int(1, 1_000_000).default(60)
    .describe('Requests without a valid API key one client address may make per minute (per replica) before it is answered 429 without a key lookup'),
  TRUSTED_PROXY_HOPS: int(0, 10).default(0)
    .describe('Proxies in front of the API that append to X-Forwarded-For (ingress, load balancer); the client address is the entry that many from the right. 0: the socket peer'),
  MAX_DATA_AGE_SECONDS: int(60, 365 * 24 * 3600).default(172_800)
    .describe('A carrier snapshot older than this makes every verdict degraded (data_stale)'),
  STATE_POLL_MS: int(50, 1000).default(250)
    .describe('How often a replica re-reads the snapshot pointer, rule set and key epoch (bounds propagation time)'),
  CARRIER_CACHE_MAX: int(1, 10_000_000).default(200_000).describe('Entries in the in-process carrier LRU'),
  CARRIER_CACHE_WARM_MAX: int(0, 10_000_000).default(20_000)
    .describe('On a snapshot switch, this many of the most recently used cached carriers are read from the new snapshot before it is served, so checks stay cache hits (0: off)'),
  CARRIER_CACHE_WARM_MS: int(0, 10_000).default(1000)
    .describe('How long that reading may hold a snapshot switch; what was read by then is kept'),
  CONSOLE_DIR: z.string().min(1).optional()
    .describe('The compliance console\'s built files (default: dist/console beside the code; unset and not built: no console)'),
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
  DECISION_RETENTION_DAYS: int(1, 3650).default(2)
    .describe('The Redis window: archived decision records older than this many days are evicted from Redis (never one not yet archived); older ones are read from the archive'),
  DECISION_ARCHIVE_DIR: z.string().min(1).default('decision-archive')
    .describe('Local directory of the continuous decision archive (a mounted volume); unused when DECISION_ARCHIVE_S3_BUCKET is set'),
  DECISION_ARCHIVE_S3_BUCKET: z.string().min(3).max(63).optional()
    .describe('When set, the archive lives in this S3-compatible bucket (region and credentials from the usual AWS_* environment)'),
  DECISION_ARCHIVE_S3_PREFIX: z.string().max(256).default('')
    .describe('Key prefix of the archive inside the bucket'),
  DECISION_ARCHIVE_S3_ENDPOINT: z.string().url().optional()
    .describe('Endpoint of an S3-compatible store other than AWS (path-style addressing is then used)'),
  DECISION_ARCHIVE_YEARS: int(1, 100).default(10)
    .describe('Archived segments older than this are deleted, except those holding a record under legal hold'),
  DECISION_LEGAL_HOLD: z.string().regex(/^\s*((account|mc):[^,\s]+\s*(,\s*(account|mc):[^,\s]+\s*)*)?$/, 'comma-separated account:NAME or mc:NUMBER').default('')
    .describe('Comma-separated account:NAME and mc:NUMBER entries whose archived records are never deleted'),
  DECISION_ARCHIVER: z.enum(['on', 'off']).default('on')
    .describe('on: the worker role archives records continuously (needs DECISION_SIGNING_KEY); off: only `decisions archive` does'),
  DECISION_ARCHIVE_INTERVAL_SECONDS: int(5, 240).default(60)
    .describe('How often the archiver writes a segment; a record reaches the archive within this plus DECISION_ARCHIVE_LAG_SECONDS'),
  DECISION_ARCHIVE_LAG_SECONDS: int(0, 60).default(30)
    .describe('A second is archived only once it is this old, so records still being written land in its segment'),
  DECISION_RECORDS: z.enum(['on', 'off']).default('on')
    .describe('Benchmarks only: off answers without writing decision records. Production must leave it on'),
  DECISION_SIGNING_KEY: z.string().optional()
    .describe('Ed25519 private key (PEM, or base64 PKCS#8 DER) that signs export manifests; needed by decisions export'),
  MONITORING_MAX_WATCHED: int(1, 10_000_000).default(100_000).describe('Carriers one account may watch (docs/monitoring.md)'),
  MONITORING_EVENT_RETENTION_DAYS: int(1, 365).default(30)
    .describe('Monitoring events are kept per account this many days (pull feed and replay window)'),
  MONITORING_POLL_MS: int(50, 60_000).default(500)
    .describe('How often the monitoring worker looks for snapshot, rule set, do-not-use and time-based changes'),
  WEBHOOK_ALLOW_PRIVATE: z.enum(['true', 'false']).default('false').transform((value) => value === 'true')
    .describe('Allow webhook URLs that resolve to private, loopback or link-local addresses (tests and private networks only)'),
  WEBHOOK_RETRY_WINDOW_SECONDS: int(60, 14 * 86_400).default(259_200)
    .describe('A webhook delivery is retried (exponential backoff with jitter) for this long before it is given up'),
  WEBHOOK_RETRY_BASE_MS: int(10, 600_000).default(5000).describe('First webhook retry delay; doubles per attempt (capped at 1 h)'),
  WEBHOOK_TIMEOUT_MS: int(100, 60_000).default(10_000).describe('A webhook POST that takes longer counts as a failed attempt'),
  INGEST_LOCK_TTL_MS: int(1000, 600_000).default(30_000)
    .describe('TTL of the ingest lock (renewed every third of it); an ingest paused longer loses the lock and its fencing token, and publishes nothing'),
  INGEST_MAX_BIPD_USD: int(1_000_000, 1_000_000_000).default(50_000_000)
    .describe('A BIPD amount above this (US dollars) refuses its file: no real policy is that large, a file in the wrong units is (docs/ingest.md)'),
  INGEST_MAX_UNKNOWN_SHARE: z.coerce.number().min(0).max(1).default(0.01)
    .describe('Largest share of a coded field (status, flag, rating) outside its closed value set before the ingest is refused'),
  INGEST_MAX_BLANK_RISE: z.coerce.number().min(0).max(1).default(0.05)
    .describe('Largest rise of a coded field\'s blank share against the serving snapshot (share points) before the ingest is refused'),
  INGEST_MAX_VERDICT_SHIFT: z.coerce.number().min(0).max(1).default(0.05)
    .describe('Largest fall of the eligible count, or rise of one reason\'s count, against the serving snapshot (share of carriers) before the ingest is refused'),
  INGEST_MAX_NEWLY_ELIGIBLE: z.coerce.number().min(0).max(1).default(0.005)
    .describe('Largest share of carriers that may move from blocked or review to eligible in one ingest (at least 5) before it is refused'),
  INGEST_MAX_QUARANTINE_SHARE: z.coerce.number().min(0).max(1).default(0.005)
    .describe('Largest share of a source\'s rows that may be set aside as unreadable (their carriers fail closed) before the ingest is refused'),
  IDENTITY_EXCEPTIONS_FILE: z.string().min(1).optional()
    .describe('JSON file of known legitimate shared contacts (phones, emails, addresses, DOT groups) the ingest\'s shared-contact index does not count (docs/identity.md); --identity-exceptions overrides it'),
  INGEST_MAX_LIST_REMOVED_SHARE: z.coerce.number().min(0).max(1).default(0.01)
    .describe('Largest share of a watch list\'s entries (OFAC SDN, consolidated, SAM) that may disappear against the serving snapshot before the ingest is refused (removed:<list>); every removed entry is named in the report'),
  INGEST_NICE: int(0, 19).default(10)
    .describe('Scheduling niceness of the ingest CLI and its matching worker (0 = normal): where it shares cores with API replicas and Redis, checks come first'),
  INGEST_MATCH_WORKER: z.enum(['auto', 'on', 'off']).default('auto')
    .describe('Where the ingest matches census names against the watch lists: on a worker thread beside the census pass (on), on the ingest\'s own thread (off), or the worker for a census file of 16 MB or more (auto)'),
  INGEST_MAX_MEDIAN_FACTOR: z.coerce.number().min(1.5).max(1000).default(5)
    .describe('An insurance amount field whose median moves this many times (either way) against the serving snapshot refuses the ingest (a file in other units)'),
  INGEST_WRITE_BATCH: int(10, 10_000).default(250)
    .describe('Carrier records per Redis pipeline the ingest writes (Redis serves no one else while it runs one)'),
  INGEST_WRITE_RATE: int(0, 10_000_000).default(20_000)
    .describe('Carrier records per second the ingest writes at most, so single checks stay fast during a large ingest (0: unpaced; bench/ingest-while-serving.ts)'),
  SNAPSHOT_MAX_VERSIONS: int(2, 20).default(3)
    .describe('Most snapshot versions Redis holds at once, the serving one and one being written included; the oldest retired version goes first, even within its grace'),
  SNAPSHOT_SWEEP_INTERVAL_SECONDS: int(5, 3600).default(60)
    .describe('How often the worker role removes retired snapshot versions whose grace is over, and orphans of failed ingests (one sweeper at a time)'),
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
  const problems = [
    ...(parsed.success ? [] : parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`)),
    ...redisModeProblems(known),
  ];
  if (!parsed.success || problems.length > 0) throw new ConfigError(problems);
  return Object.freeze(parsed.data);
}
