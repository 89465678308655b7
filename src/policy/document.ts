// An account's carrier policy: the knobs brokers' published carrier requirements differ in, validated by zod and
// held against the global rule set, which is the floor. A policy may only be stricter than the floor: a minimum
// raised, a required age lengthened, a maximum age shortened, a review escalated to a block. `pass` is allowed
// only for the three reasons brokers commonly waive; no sanctions, insurance, authority or ambiguity reason, and
// no hard stop, can be relaxed. Every problem is reported at once, each naming its field.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { REASON_CODES, REASONS, type Reason } from '../core/reasons.js';
import { identityRules } from '../core/identity-signals.js';
import type { RuleSet } from '../core/ruleset.js';
import type { FieldError } from '../errors.js';
import { isOneOf } from '../core/one-of.js';

/** Review reasons a policy may waive (`pass`): the account's own appetite, not a legal or sanctions question. */
export const PASSABLE_REASONS = ['mcs150_outdated', 'new_authority', 'conditional_safety_rating'] as const satisfies readonly Reason[];

const outcome = z.enum(['review', 'block', 'pass']);
const count = z.number().int().nonnegative();

export const policySchema = z.object({
  insurance: z.object({
    min_bipd_usd: count.describe('Minimum BIPD liability on file for general freight'),
    cancellation_warning_days: count.describe('A cancellation effective within this many days makes the carrier a review'),
  }).partial().strict().optional(),
  authority: z.object({
    min_age_days: count.describe('Authority younger than this is new_authority'),
  }).partial().strict().optional(),
  mcs150: z.object({
    max_age_months: z.number().int().positive().describe('MCS-150 older than this is mcs150_outdated'),
  }).partial().strict().optional(),
  safety: z.object({
    conditional_rating: z.enum(['review', 'block']).describe('What a Conditional safety rating does'),
  }).partial().strict().optional(),
  identity: z.object({
    contact_change_days: count.max(365).describe('A contact change this recent is recent_contact_change (floor: the rule set\'s window; may only lengthen)'),
    address_change_days: count.max(365).describe('An address change this recent is recent_address_change (may only lengthen)'),
    name_change_days: count.max(365).describe('A name change this recent is recent_name_change (may only lengthen)'),
    shared_contact_max: z.number().int().min(1).describe('More unrelated carriers sharing a phone or email than this is shared_contact (may only lower)'),
    reactivation_days: count.max(365).describe('Authority active again this recently is authority_reactivated (may only lengthen)'),
  }).partial().strict().optional(),
  outcomes: z.record(z.string(), outcome).optional().describe('Review reason → review | block | pass'),
  overrides: z.object({
    four_eyes: z.boolean().describe('Overrides need a second person (clearances always do)'),
    max_days: z.number().int().min(1).max(365).describe('Longest an override may run'),
  }).partial().strict().optional(),
}).strict();

export type PolicyDocument = z.infer<typeof policySchema>;
export type Outcome = z.infer<typeof outcome>;

/** A published version: the document, its integer version per account and its content hash. */
export interface PublishedPolicy {
  account: string;
  version: number;
  sha256: string;
  published_at: string;
  published_by: string | null;
  policy: PolicyDocument;
}

/** Canonical JSON (keys sorted at every level, no blanks), so the hash names the content, not its spelling. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export const policyHash = (policy: PolicyDocument): string => createHash('sha256').update(canonicalJson(policy)).digest('hex');

/** Parses and holds a candidate against the floor: the document, or every problem found, each naming its field. */
export function validatePolicy(candidate: unknown, floor: RuleSet): { ok: true; policy: PolicyDocument } | { ok: false; errors: FieldError[] } {
  const parsed = policySchema.safeParse(candidate);
  if (!parsed.success) {
    return { ok: false, errors: parsed.error.issues.map((issue) => ({ path: issue.path.join('.') || '(document)', message: issue.message })) };
  }
  const policy = parsed.data;
  const errors: FieldError[] = [];
  const atLeast = (path: string, value: number | undefined, min: number, what: string) => {
    if (value !== undefined && value < min) errors.push({ path, message: `${value} is looser than the floor: ${what} is ${min}; a policy may only raise it` });
  };
  atLeast('insurance.min_bipd_usd', policy.insurance?.min_bipd_usd, floor.insurance.min_bipd_general_usd, 'the rule set minimum BIPD');
  atLeast('insurance.cancellation_warning_days', policy.insurance?.cancellation_warning_days, floor.insurance.cancellation_warning_days, 'the rule set warning period');
  atLeast('authority.min_age_days', policy.authority?.min_age_days, floor.authority.new_authority_min_days, 'the rule set minimum authority age');
  const floorIdentity = identityRules(floor);
  for (const field of ['contact_change_days', 'address_change_days', 'name_change_days', 'reactivation_days'] as const) {
    atLeast(`identity.${field}`, policy.identity?.[field], floorIdentity[field], `the rule set's identity.${field}`);
  }
  const sharedMax = policy.identity?.shared_contact_max;
  if (sharedMax !== undefined && sharedMax > floorIdentity.shared_contact_max) {
    errors.push({ path: 'identity.shared_contact_max', message: `${sharedMax} is looser than the floor: the rule set allows ${floorIdentity.shared_contact_max}; a policy may only lower it` });
  }
  const maxAge = policy.mcs150?.max_age_months;
  if (maxAge !== undefined && maxAge > floor.mcs150.max_age_months) {
    errors.push({ path: 'mcs150.max_age_months', message: `${maxAge} is looser than the floor: the rule set allows ${floor.mcs150.max_age_months} months; a policy may only shorten it` });
  }
  if (floor.safety.conditional === 'block' && policy.safety?.conditional_rating === 'review') {
    errors.push({ path: 'safety.conditional_rating', message: 'the rule set blocks a Conditional rating; a policy cannot make it a review' });
  }
  for (const [reason, value] of Object.entries(policy.outcomes ?? {})) {
    const path = `outcomes.${reason}`;
    if (!isOneOf(REASON_CODES, reason)) { errors.push({ path, message: 'not a reason code' }); continue; }
    const kind = REASONS[reason].kind;
    const hardByFloor = reason === 'conditional_safety_rating' && floor.safety.conditional === 'block';
    if (kind !== 'review' || hardByFloor) { errors.push({ path, message: `${reason} is a ${hardByFloor ? 'hard stop under the rule set' : kind.replace('_', ' ')} reason; a policy cannot change it` }); continue; }
    if (value === 'pass' && !isOneOf(PASSABLE_REASONS, reason)) {
      errors.push({ path, message: `pass is allowed only for ${PASSABLE_REASONS.join(', ')}; ${reason} may be review or block` });
    }
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, policy };
}
