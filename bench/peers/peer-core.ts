// The work of one eligibility check, written the obvious way, shared by the two peer servers in this folder
// (naive-uws.ts, fastify.ts). They exist only to be measured against the service in the same bench run
// (issue 10): same Redis data (the service's snapshot, rule set and API keys under the same prefix), same
// pure core (decide(), the carrier codec, MC normalisation, the key check), same response contract
// (status, verdict body, x-request-id / cache-control / RateLimit headers), but the plumbing a first version
// would have: SHA-256 of the presented secret on every request, one rate-limiter-flexible Redis call per
// request, lru-cache for key records and carriers, uuid v7 ids, a fresh verdict object serialised per request,
// a labelled prom-client counter, and, with PEER_RECORDS=1 (default), one awaited Redis SET per decision record.
// With PEER_EVIDENCE=1 (default) the verdict carries decide()'s evidence, as the service's does (interface 1.1), so
// the answer and the record are the service's in full; PEER_EVIDENCE=0 is the peers without it, which built
// the evidence and dropped it. What it does NOT do is any of the service's caching of work across requests.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import { pino } from 'pino';
import { Counter, Registry } from 'prom-client';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { v7 as uuidv7 } from 'uuid';
import { checkKey, parseApiKey, type StoredApiKey } from '../../src/auth/api-key.js';
import { fromHashFields } from '../../src/auth/key-store.js';
import type { CarrierLookup } from '../../src/core/carrier.js';
import { decide } from '../../src/core/decide.js';
import type { Evidence } from '../../src/core/evidence.js';
import { normaliseMcNumber } from '../../src/core/mc-number.js';
import { LiveState } from '../../src/state/live-state.js';
import { decodeCarrier } from '../../src/store/carrier-codec.js';
import { carrierBucket, redisKeys } from '../../src/store/keys.js';
import { peerPrefix, peerRecordsHead } from './peer-keys.js';

export const MC_PATTERN = '^\\s*(?:[Mm][Cc][-#\\s]?\\s*)?\\d{1,8}\\s*$';

export interface PeerVerdict {
  eligible: boolean;
  found: boolean;
  tier: string | null;
  reasons: string[];
  degraded: boolean;
  decision_id: string;
  ruleset_version: number | null;
  data_as_of: string | null;
  evaluated_at: string;
  cache_hit: boolean;
  mc_number: string;
  carrier: { dot_number: string | null; legal_name: string; dba_name: string | null } | null;
  /** Absent with PEER_EVIDENCE=0. */
  evidence?: Evidence;
}

export interface PeerProblem {
  status: number;
  headers: Record<string, string>;
  body: { type: string; title: string; status: number; detail: string };
}

export type PeerAuth = { ok: true; key: StoredApiKey } | { ok: false; problem: PeerProblem };
export type PeerLimit = { ok: true; headers: Record<string, string> } | { ok: false; problem: PeerProblem };

function problem(status: number, title: string, detail: string, headers: Record<string, string> = {}): PeerProblem {
  return { status, headers, body: { type: 'about:blank', title, status, detail } };
}

export class PeerCore {
  readonly redis: Redis;
  private readonly keys;
  /** Peer-owned keys (rate counters, records) live under the same prefix, so the bench's cleanup removes them. */
  private readonly peerPrefix: string;
  private readonly recordsHead: string;
  private readonly state: LiveState;
  private readonly keyCache = new LRUCache<string, StoredApiKey>({ max: 50_000 });
  private readonly carriers: LRUCache<string, CarrierLookup>;
  private readonly limiters = new Map<number, RateLimiterRedis>();
  private readonly verdicts: Counter;
  readonly registry = new Registry();
  readonly records = process.env.PEER_RECORDS !== '0';
  readonly evidence = process.env.PEER_EVIDENCE !== '0';

  constructor(env: NodeJS.ProcessEnv = process.env) {
    this.redis = new Redis(env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    this.keys = redisKeys(env.REDIS_PREFIX ?? 'ce:');
    this.peerPrefix = peerPrefix(env.REDIS_PREFIX ?? 'ce:');
    this.recordsHead = peerRecordsHead(env.REDIS_PREFIX ?? 'ce:');
    this.state = new LiveState(this.redis, this.keys, 250, pino({ level: 'silent' }));
    this.carriers = new LRUCache({ max: Number(env.CARRIER_CACHE_MAX ?? 200_000) });
    this.verdicts = new Counter({
      name: 'peer_verdicts_total', help: 'verdicts', labelNames: ['tier', 'degraded', 'cache_hit'], registers: [this.registry],
    });
  }

  start(): Promise<void> {
    return this.state.start();
  }

  async stop(): Promise<void> {
    this.state.stop();
    await this.redis.quit();
  }

  async authenticate(presented: string | undefined): Promise<PeerAuth> {
    const unauthorized = (): PeerAuth => ({
      ok: false,
      problem: problem(401, 'Unauthorized', 'Send a valid, active API key in the x-api-key header.', { 'www-authenticate': 'ApiKey header="x-api-key"' }),
    });
    const parsed = presented ? parseApiKey(presented) : null;
    if (!parsed) return unauthorized();
    let stored = this.keyCache.get(parsed.id) ?? null;
    if (!stored) {
      stored = fromHashFields(await this.redis.hgetall(this.keys.apiKey(parsed.id)));
      if (stored) this.keyCache.set(parsed.id, stored);
    }
    if (checkKey(stored, parsed.secret, Date.now()) !== null || !stored) return unauthorized();
    if (!stored.scopes.includes('eligibility')) return { ok: false, problem: problem(403, 'Forbidden', 'This API key does not have the eligibility scope.') };
    return { ok: true, key: stored };
  }

  /** One Redis round trip per request: rate-limiter-flexible's fixed-window INCR script. */
  async limit(key: StoredApiKey): Promise<PeerLimit> {
    let limiter = this.limiters.get(key.rate_per_minute);
    if (!limiter) {
      limiter = new RateLimiterRedis({ storeClient: this.redis, keyPrefix: `${this.peerPrefix}rl`, points: key.rate_per_minute, duration: 60 });
      this.limiters.set(key.rate_per_minute, limiter);
    }
    const policy = `"key";q=${key.rate_per_minute};w=60`;
    try {
      const result = await limiter.consume(key.id, 1);
      return { ok: true, headers: { 'ratelimit-policy': policy, ratelimit: `"key";r=${result.remainingPoints};t=${Math.ceil(result.msBeforeNext / 1000)}` } };
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      const retry = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
      return {
        ok: false,
        problem: problem(429, 'Too Many Requests', `The budget of ${key.rate_per_minute} checks per minute is spent; retry later.`, {
          'retry-after': String(retry), 'ratelimit-policy': policy, ratelimit: `"key";r=0;t=${retry}`,
        }),
      };
    }
  }

  normalise(raw: string): string | null {
    return normaliseMcNumber(raw);
  }

  async evaluate(mc: string): Promise<PeerVerdict> {
    const { snapshot, ruleset } = this.state;
    let lookup: CarrierLookup | null = null;
    let cacheHit = false;
    let backendAvailable = this.state.redisUp;
    if (backendAvailable && snapshot) {
      const cacheKey = `${snapshot.version}:${mc}`;
      const cached = this.carriers.get(cacheKey);
      if (cached) {
        lookup = cached;
        cacheHit = true;
      } else {
        try {
          lookup = decodeCarrier(mc, await this.redis.hget(this.keys.carrierBucket(snapshot.version, carrierBucket(mc)), mc));
          this.carriers.set(cacheKey, lookup);
        } catch {
          backendAvailable = false;
        }
      }
    }
    const nowMs = Date.now();
    const decision = decide({
      lookup, ruleset, snapshot, backendAvailable, maxDataAgeSeconds: 172_800, nowMs, onDoNotUseList: this.state.doNotUse.has(mc, nowMs),
    });
    const verdict: PeerVerdict = {
      eligible: decision.eligible, found: decision.found, tier: decision.tier, reasons: decision.reasons, degraded: decision.degraded,
      decision_id: uuidv7(), ruleset_version: decision.ruleset_version, data_as_of: decision.data_as_of,
      evaluated_at: new Date(nowMs).toISOString(), cache_hit: cacheHit && !decision.degraded, mc_number: mc, carrier: decision.carrier,
      evidence: this.evidence ? decision.evidence : undefined,
    };
    this.verdicts.labels(verdict.tier ?? 'none', String(verdict.degraded), String(verdict.cache_hit)).inc();
    return verdict;
  }

  /** The naive decision record: one awaited SET per verdict, before the answer goes out. */
  async record(verdict: PeerVerdict, keyId: string, requestId: string): Promise<void> {
    if (!this.records) return;
    await this.redis.set(`${this.recordsHead}${verdict.decision_id}`,
      JSON.stringify({ verdict, key_id: keyId, request_id: requestId }), 'EX', 600);
  }

  requestId(incoming: string | undefined): string {
    return incoming && /^[A-Za-z0-9._:-]{1,128}$/.test(incoming) ? incoming : randomUUID();
  }
}

export function validationProblem(detail: string): PeerProblem {
  return problem(422, 'Unprocessable Content', detail);
}

export function invalidJsonProblem(): PeerProblem {
  return problem(400, 'Bad Request', 'The request body must be a JSON document.');
}
