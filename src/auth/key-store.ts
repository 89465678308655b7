// API key records in Redis, with an in-process cache so the hot path does not read Redis per request.
// Every change bumps keys:epoch; the live-state poller clears this cache when the epoch moves (≤ 1 s).
// A lookup reads the record and the deployment mark together (both {ctl}: one slot, one round trip): a key
// that is not there while the mark is gone means Redis lost its data, which is a backend failure (degraded
// verdict, 503 for batch), never a 401.
import type { RedisClient } from '../redis/connection.js';
import { LRUCache } from 'lru-cache';
import { z } from 'zod';
import { execValues } from '../redis/exec-values.js';
import { withDeploymentMark } from '../store/deployment-mark.js';
import type { RedisKeys } from '../store/keys.js';
import { generateApiKey, hashSecret, SCOPES, type ApiKeyRecord, type Scope, type StoredApiKey } from './api-key.js';
import { isOneOf } from '../core/one-of.js';

const MISSING = Symbol('missing');
/** HGETALL of the key's record, EXISTS of the deployment mark. */
const lookupReply = z.tuple([z.record(z.string(), z.string()), z.number()]);
type CacheEntry = StoredApiKey | typeof MISSING;

export function toHashFields(key: StoredApiKey): Record<string, string> {
  return {
    id: key.id, account: key.account, label: key.label, scopes: key.scopes.join(','), status: key.status,
    expires_at: key.expires_at ?? '', rate_per_minute: String(key.rate_per_minute), created_at: key.created_at,
    secret_sha256: key.secret_sha256, actor: key.actor ?? '',
  };
}

export function fromHashFields(fields: Record<string, string>): StoredApiKey | null {
  if (!fields.id || !fields.secret_sha256) return null;
  return {
    id: fields.id,
    account: fields.account ?? '',
    label: fields.label ?? '',
    scopes: (fields.scopes ?? '').split(',').filter((scope) => isOneOf(SCOPES, scope)),
    status: fields.status === 'active' ? 'active' : 'inactive',
    expires_at: fields.expires_at ? fields.expires_at : null,
    rate_per_minute: Number(fields.rate_per_minute) || 1,
    created_at: fields.created_at ?? '',
    actor: fields.actor ? fields.actor : null,
    secret_sha256: fields.secret_sha256,
  };
}

export function publicRecord(key: StoredApiKey): ApiKeyRecord {
  const { secret_sha256: _hidden, ...record } = key;
  return record;
}

/** Thrown by a lookup that cannot be trusted: Redis answered, but without this deployment's data. */
export class BackendDataMissingError extends Error {
  constructor() {
    super('Redis holds no deployment mark: its data is missing');
    this.name = 'BackendDataMissingError';
  }
}

export class KeyStore {
  private readonly cache = new LRUCache<string, CacheEntry>({ max: 50_000 });

  constructor(private readonly redis: RedisClient, private readonly keys: RedisKeys) {}

  /**
   * The key record by id, from cache or Redis; null when unknown. Throws when Redis fails, and
   * BackendDataMissingError when the key is not there and neither is the deployment mark.
   */
  async find(id: string): Promise<StoredApiKey | null> {
    const cached = this.peek(id);
    if (cached !== undefined) return cached;
    const [fields, markCount] = lookupReply.parse(execValues(
      await this.redis.multi().hgetall(this.keys.apiKey(id)).exists(this.keys.deploymentMark).exec(), 'key lookup',
    ));
    const record = fromHashFields(fields);
    if (!record && markCount === 0) throw new BackendDataMissingError();
    // Unknown ids are cached briefly so random keys cannot turn every request into a Redis read.
    this.cache.set(id, record ?? MISSING, record ? {} : { ttl: 1000 });
    return record;
  }

  /**
   * The lookup find() makes, sent to Redis whatever the cache holds, its answer dropped: a failed
   * authentication of a cached id spends it, so every unknown or wrong key costs the same round trip.
   */
  async probe(id: string): Promise<void> {
    await this.redis.multi().hgetall(this.keys.apiKey(id)).exists(this.keys.deploymentMark).exec();
  }

  /** The cached record (null: known to be unknown), or undefined when only Redis can tell. Never touches Redis. */
  peek(id: string): StoredApiKey | null | undefined {
    const cached = this.cache.get(id);
    return cached === MISSING ? null : cached;
  }

  /** Drops every cached record; called when keys:epoch moves. */
  invalidate(): void {
    this.cache.clear();
  }
}

/** What a new key is issued with; the id, secret and creation time are made by issue(). */
export interface KeyGrant {
  account: string;
  scopes: Scope[];
  rate_per_minute: number;
  label?: string;
  /** RFC 3339; absent or null: never expires. */
  expires_at?: string | null;
  status?: 'active' | 'inactive';
  actor?: string | null;
}

/** Writes for operators (CLI). Each bumps the epoch so every replica drops its cache. */
export class KeyAdmin {
  constructor(private readonly redis: RedisClient, private readonly keys: RedisKeys) {}

  /**
   * Issues a key: a fresh id and secret, the record saved with only the secret's SHA-256. The one way keys are
   * made (CLI `keys create`, tests, bench, demo); the plaintext is returned once and stored nowhere.
   */
  async issue(grant: KeyGrant, now: Date = new Date()): Promise<{ key: string; record: StoredApiKey }> {
    const { id, secret, plaintext } = generateApiKey();
    const record: StoredApiKey = {
      id, account: grant.account, label: grant.label ?? '', scopes: grant.scopes, status: grant.status ?? 'active',
      expires_at: grant.expires_at ?? null, rate_per_minute: grant.rate_per_minute, created_at: now.toISOString(),
      actor: grant.actor ?? null, secret_sha256: hashSecret(secret),
    };
    await this.save(record);
    return { key: plaintext, record };
  }

  async save(key: StoredApiKey): Promise<void> {
    // One {ctl} transaction: record, index, epoch and the deployment mark.
    await withDeploymentMark(this.redis.multi(), this.keys, 'keys')
      .hset(this.keys.apiKey(key.id), toHashFields(key))
      .sadd(this.keys.apiKeyIndex, key.id)
      .incr(this.keys.apiKeyEpoch)
      .exec();
  }

  async get(id: string): Promise<StoredApiKey | null> {
    return fromHashFields(await this.redis.hgetall(this.keys.apiKey(id)));
  }

  async list(): Promise<ApiKeyRecord[]> {
    const ids = await this.redis.smembers(this.keys.apiKeyIndex);
    const records = await Promise.all(ids.map((id) => this.get(id)));
    return records.filter((key): key is StoredApiKey => key !== null).map(publicRecord)
      .sort((a, b) => a.created_at.localeCompare(b.created_at));
  }

  async setStatus(id: string, status: 'active' | 'inactive'): Promise<StoredApiKey | null> {
    const existing = await this.get(id);
    if (!existing) return null;
    const updated = { ...existing, status };
    await this.save(updated);
    return updated;
  }
}
