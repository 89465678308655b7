// Publishing and reading rule sets. Versions are integers from a Redis counter, so every verdict can name the
// exact rules it applied; old versions are kept for audit.
import type { RedisClient } from '../redis/connection.js';
import { DEFAULT_RULE_SET, ruleSetSchema, type PublishedRuleSet } from '../core/ruleset.js';
import { withDeploymentMark } from './deployment-mark.js';
import type { RedisKeys } from './keys.js';
import { decodePublishedRuleSet } from './stored-json.js';

export class RuleSetValidationError extends Error {}

/** Validates a rule set body; throws RuleSetValidationError with one line per problem. */
export function validateRuleSet(body: unknown): PublishedRuleSet['rules'] {
  const parsed = ruleSetSchema.safeParse(body);
  if (!parsed.success) {
    throw new RuleSetValidationError(parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`).join('; '));
  }
  return parsed.data;
}

export async function publishRuleSet(redis: RedisClient, keys: RedisKeys, body: unknown, nowMs = Date.now()): Promise<PublishedRuleSet> {
  const rules = validateRuleSet(body);
  const version = await redis.incr(keys.rulesetSeq);
  const published: PublishedRuleSet = { version, published_at: new Date(nowMs).toISOString(), rules };
  // One {ctl} transaction: the version, the pointer to it and the deployment mark.
  const results = await withDeploymentMark(redis.multi(), keys, 'rules')
    .set(keys.ruleset(version), JSON.stringify(published))
    .set(keys.rulesetCurrent, String(version))
    .exec();
  const failure = results?.find(([error]) => error);
  if (!results || failure?.[0]) throw failure?.[0] ?? new Error('rule set publish aborted');
  return published;
}

export async function currentRuleSet(redis: RedisClient, keys: RedisKeys): Promise<PublishedRuleSet | null> {
  const version = await redis.get(keys.rulesetCurrent);
  if (version === null) return null;
  const raw = await redis.get(keys.ruleset(Number(version)));
  return raw ? decodePublishedRuleSet(raw) : null;
}

/** Publishes the built-in default rule set unless one is already in force; returns the one in force. */
export async function ensureRuleSet(redis: RedisClient, keys: RedisKeys): Promise<PublishedRuleSet> {
  return (await currentRuleSet(redis, keys)) ?? publishRuleSet(redis, keys, DEFAULT_RULE_SET);
}
