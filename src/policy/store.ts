// Account policies in Redis ({ctl} slot, with the rule sets): every version kept forever per account, the
// current version per account, and an epoch that replicas poll. Bodies read back are decoded by zod here.
import { z } from 'zod';
import type { RedisClient } from '../redis/connection.js';
import { luaScripts } from '../redis/scripts.js';
import { tagged } from '../store/keys.js';
import { policyHash, policySchema, type PolicyDocument, type PublishedPolicy } from './document.js';

export function policyKeys(prefix: string) {
  return {
    versions: (account: string) => tagged(prefix, 'ctl', `policy:versions:${account}`),
    current: tagged(prefix, 'ctl', 'policy:current'),
    epoch: tagged(prefix, 'ctl', 'policy:epoch'),
  };
}
export type PolicyKeys = ReturnType<typeof policyKeys>;

const storedBody = z.object({
  sha256: z.string(), published_at: z.string(), published_by: z.string().nullable(), policy: policySchema,
});

function decode(account: string, version: number, raw: string): PublishedPolicy {
  return { account, version, ...storedBody.parse(JSON.parse(raw)) };
}

export class PolicyStore {
  constructor(private readonly redis: RedisClient, readonly keys: PolicyKeys, private readonly now: () => number = Date.now) {}

  /** Publishes the next version; the document must already have passed validatePolicy. */
  async publish(account: string, policy: PolicyDocument, publishedBy: string | null): Promise<PublishedPolicy> {
    const body = { sha256: policyHash(policy), published_at: new Date(this.now()).toISOString(), published_by: publishedBy, policy };
    const version = await luaScripts.policyPublish(this.redis, { versions: this.keys.versions(account), current: this.keys.current, epoch: this.keys.epoch }, account, JSON.stringify(body));
    return { account, version, ...body };
  }

  async current(account: string): Promise<PublishedPolicy | null> {
    const version = await this.redis.hget(this.keys.current, account);
    return version === null ? null : this.version(account, Number(version));
  }

  async version(account: string, version: number): Promise<PublishedPolicy | null> {
    if (!Number.isSafeInteger(version) || version < 1) return null;
    const raw = await this.redis.hget(this.keys.versions(account), String(version));
    return raw === null ? null : decode(account, version, raw);
  }

  /** Every account's current version number (small: one entry per account with a policy). */
  async currentVersions(): Promise<Map<string, number>> {
    const all = await this.redis.hgetall(this.keys.current);
    return new Map(Object.entries(all).map(([account, version]) => [account, Number(version)]));
  }

  async epoch(): Promise<string | null> {
    return this.redis.get(this.keys.epoch);
  }
}
