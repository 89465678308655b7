// The rule set: every threshold a verdict depends on, as versioned data rather than constants in code.
// Published with `carrier-eligibility rules publish FILE`; each verdict names the integer version it used.
import { z } from 'zod';
import type { Reason } from './reasons.js';

export const SOURCE_NAMES = [
  'census', 'authority', 'insurance', 'insurance_history', 'revocations', 'authority_history', 'oos', 'ofac_sdn', 'ofac_cons', 'sam', 'dnu',
] as const;
export type SourceName = (typeof SOURCE_NAMES)[number];

/** The longest window any identity rule may have: the ingest keeps identity facts on the record this long. */
export const IDENTITY_HORIZON_DAYS = 365;

export const DEFAULT_IDENTITY_RULES = {
  contact_change_days: 30, address_change_days: 30, name_change_days: 30, shared_contact_max: 3, reactivation_days: 90, long_inactivity_days: 180,
};

export const ruleSetSchema = z.object({
  name: z.string().min(1).max(100).default('default'),
  insurance: z.object({
    min_bipd_general_usd: z.number().int().nonnegative().describe('Minimum BIPD for general freight'),
    min_bipd_hazmat_usd: z.number().int().nonnegative().describe('Minimum BIPD for a hazmat carrier'),
    cancellation_warning_days: z.number().int().nonnegative()
      .describe('A cancellation effective within this many days is pending'),
    // Added later: the default keeps rule sets published before it valid.
    federal_min_bipd_hazmat_usd: z.number().int().min(1_000_000).max(5_000_000).default(5_000_000)
      .describe('The 49 CFR 387.9 amount assumed for a carrier the census marks hazmat (HM_Ind Y): the census cannot tell '
        + 'the $1M classes (oil, most hazmat) from the $5M ones (bulk and listed hazmat), so the stricter one by default'),
  }).strict(),
  authority: z.object({
    new_authority_min_days: z.number().int().nonnegative().describe('Authority younger than this is new_authority'),
  }).strict(),
  mcs150: z.object({
    max_age_months: z.number().int().positive().describe('MCS-150 older than this is mcs150_outdated'),
  }).strict(),
  safety: z.object({
    conditional: z.enum(['review', 'block']).describe('What a Conditional rating does'),
  }).strict(),
  preferred: z.object({
    requires_satisfactory_rating: z.boolean().describe('Preferred tier needs an S safety rating'),
    min_bipd_usd: z.number().int().nonnegative().describe('Preferred tier needs at least this BIPD on file'),
  }).strict(),
  name_match: z.object({
    review_threshold: z.number().min(0).max(1).describe('Similarity at or above which a name match needs review'),
    // Added later: defaults keep rule sets published before it valid.
    hard_stop_threshold: z.number().min(0).max(1).default(0.95)
      .describe('Score at or above which an entity match on a prohibiting list (SDN, SAM) is a hard stop; persons also need a confirming identifier'),
  }).strict(),
  // Added later: the defaults keep rule sets published before it valid (src/core/identity-signals.ts).
  identity: z.object({
    contact_change_days: z.number().int().min(0).max(IDENTITY_HORIZON_DAYS).default(30)
      .describe('A phone, cell phone or email first seen changed this many days ago or fewer is recent_contact_change'),
    address_change_days: z.number().int().min(0).max(IDENTITY_HORIZON_DAYS).default(30)
      .describe('A physical or mailing address change this recent is recent_address_change'),
    name_change_days: z.number().int().min(0).max(IDENTITY_HORIZON_DAYS).default(30)
      .describe('A legal or DBA name change this recent is recent_name_change'),
    shared_contact_max: z.number().int().min(1).max(1000).default(3)
      .describe('A phone or email shared with more than this many unrelated carriers is shared_contact'),
    reactivation_days: z.number().int().min(0).max(IDENTITY_HORIZON_DAYS).default(90)
      .describe('Authority active again this many days ago or fewer, after a revocation or a long inactivity, is authority_reactivated'),
    long_inactivity_days: z.number().int().min(1).max(3650).default(180)
      .describe('An inactive stretch (census USDOT status) at least this long counts for authority_reactivated'),
  }).strict().default(DEFAULT_IDENTITY_RULES),
  sources: z.object({
    required: z.array(z.enum(SOURCE_NAMES)).describe('Sources that must be present in the snapshot'),
    max_age_days: z.partialRecord(z.enum(SOURCE_NAMES), z.number().positive())
      .describe('Per-source maximum age; older means data_stale'),
  }).strict(),
}).strict();

export type RuleSet = z.infer<typeof ruleSetSchema>;

/** A rule set as stored: the body plus the integer version Redis assigned at publish time. */
export interface PublishedRuleSet {
  version: number;
  published_at: string;
  rules: RuleSet;
  /**
   * Present when an account's policy made this rule set (src/policy): `rules` are then the floor with the policy's
   * stricter knobs, and these are its outcome map and identity. decide() applies them; the version stays the
   * global rule set's.
   */
  policy?: AccountPolicyRules;
}

/** An account policy's outcome map and identity, as decide() needs them (compiled once per policy version). */
export interface AccountPolicyRules {
  version: number;
  sha256: string;
  /** Review reasons the policy turns into a block (tier blocked; the reason code stays). */
  block: ReadonlySet<Reason>;
  /** Review reasons the policy waives (only mcs150_outdated, new_authority, conditional_safety_rating). */
  pass: ReadonlySet<Reason>;
  /** The policy field behind each escalated or waived reason, for the evidence. */
  ruleOf: Readonly<Partial<Record<Reason, string>>>;
}

export const DEFAULT_RULE_SET: RuleSet = {
  name: 'default',
  insurance: {
    min_bipd_general_usd: 750_000, min_bipd_hazmat_usd: 1_000_000, cancellation_warning_days: 30, federal_min_bipd_hazmat_usd: 5_000_000,
  },
  authority: { new_authority_min_days: 90 },
  mcs150: { max_age_months: 24 },
  safety: { conditional: 'review' },
  preferred: { requires_satisfactory_rating: true, min_bipd_usd: 1_000_000 },
  name_match: { review_threshold: 0.92, hard_stop_threshold: 0.95 },
  identity: DEFAULT_IDENTITY_RULES,
  sources: {
    // Screening completeness is not optional: a snapshot without any of these gives data_stale verdicts. The OFAC
    // consolidated list is required "when given": it has a max age (so once present it must be fresh), and the
    // ingest refuses to drop a source the serving snapshot has without --force (docs/ingest.md, "Data trust").
    required: ['census', 'authority', 'insurance', 'oos', 'ofac_sdn', 'sam'],
    max_age_days: { census: 7, authority: 7, insurance: 7, oos: 7, ofac_sdn: 7, ofac_cons: 7, sam: 7 },
  },
};
