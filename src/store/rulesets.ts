// Publishing and reading rule sets. Versions are integers from a Redis counter, so every verdict can name the
// exact rules it applied; old versions are kept for audit.
import type { Redis } from 'ioredis';
import { DEFAULT_RULE_SET, ruleSetSchema, type PublishedRuleSet } from '../core/ruleset.js';
import { parsePublishedRuleSet } from '../state/live-state.js';
import type { RedisKeys } from './keys.js';

export class RuleSetValidationError extends Error {}

/** Validates a rule set body; throws RuleSetValidationError with one line per problem. */
export function validateRuleSet(body: unknown): PublishedRuleSet['rules'] {
  const parsed = ruleSetSchema.safeParse(body);
  if (!parsed.success) {
    throw new RuleSetValidationError(parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`).join('; '));
  }
  return parsed.data;
}

export async function publishRuleSet(redis: Redis, keys: RedisKeys, body: unknown, nowMs = Date.now()): Promise<PublishedRuleSet> {
  const rules = validateRuleSet(body);
  const version = await redis.incr(keys.rulesetSeq);
  const published: PublishedRuleSet = { version, published_at: new Date(nowMs).toISOString(), rules };
  await redis.set(keys.ruleset(version), JSON.stringify(published));
  await redis.set(keys.rulesetCurrent, String(version));
  return published;
}

export async function currentRuleSet(redis: Redis, keys: RedisKeys): Promise<PublishedRuleSet | null> {
  const version = await redis.get(keys.rulesetCurrent);
  if (version === null) return null;
  const raw = await redis.get(keys.ruleset(Number(version)));
  return raw ? parsePublishedRuleSet(raw) : null;
}

/** Publishes the built-in default rule set unless one is already in force; returns the one in force. */
export async function ensureRuleSet(redis: Redis, keys: RedisKeys): Promise<PublishedRuleSet> {
  return (await currentRuleSet(redis, keys)) ?? publishRuleSet(redis, keys, DEFAULT_RULE_SET);
}
