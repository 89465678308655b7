// Reads a decision record back: the verdict exactly as it was given (evidence included), who asked, the rule
// set with its content hash and the snapshot manifest. Used by GET /v1/decisions/{id}, `decisions show` and the
// export. One HGET finds a record (its bucket follows from the id); shared evidence, manifest and rule set
// follow in one more round trip, cached in-process by the export (they never change).
import { createHash } from 'node:crypto';
import type { SnapshotMeta } from '../core/carrier.js';
import { sourceEvidence } from '../core/evidence.js';
import type { PublishedRuleSet } from '../core/ruleset.js';
import type { RedisClient } from '../redis/connection.js';
import type { RedisKeys } from '../store/keys.js';
import type { Verdict } from '../core/verdict.js';
import { bucketKey } from './recorder.js';
import { DECISION_ID, decodeRecord, sharedEvidenceSchema, type SharedEvidence, type StoredRecord } from './record-codec.js';
import { decodePublishedRuleSet, decodeSnapshotMeta } from '../store/stored-json.js';

/** Looked up instead of a malformed id, so an unknown id costs the same Redis read as a real one. */
const ABSENT_ID = '00000000-0000-7000-8000-000000000000';

export interface RuleSetRef {
  version: number;
  published_at: string;
  /** SHA-256 (hex) of the rule set body as canonical JSON (keys sorted, no blanks). */
  sha256: string;
}

export interface DecisionView {
  decision_id: string;
  kind: 'check' | 'batch_row';
  verdict: Verdict;
  key_id: string;
  account: string;
  request_id: string | null;
  reference: string | null;
  /** The overrides and clearances that lifted the verdict ([] for almost every decision). */
  override_ids: string[];
  batch: { job_id: string; row: number } | null;
  ruleset: RuleSetRef | null;
  snapshot: SnapshotMeta | null;
}

/** JSON with object keys sorted at every level: the same content always gives the same bytes. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>).filter(([, item]) => item !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
}

// Rule sets never change once published: hash each loaded object once (the export reads millions of records).
const hashes = new WeakMap<PublishedRuleSet, string>();

export function ruleSetHash(ruleset: PublishedRuleSet): string {
  let hash = hashes.get(ruleset);
  if (hash === undefined) {
    hash = createHash('sha256').update(canonicalJson(ruleset.rules)).digest('hex');
    hashes.set(ruleset, hash);
  }
  return hash;
}

export class DecisionReader {
  private readonly manifests = new Map<string, SnapshotMeta | null>();
  private readonly rulesets = new Map<number, PublishedRuleSet | null>();
  private readonly shared = new Map<string, SharedEvidence | null>();

  /** `cache`: keep manifests, rule sets and shared evidence in memory (they never change); for the export. */
  constructor(private readonly redis: RedisClient, private readonly keys: RedisKeys, private readonly cache = false) {}

  /** The stored record of an id, or null when unknown (malformed ids cost the same read). */
  async readStored(id: string): Promise<StoredRecord | null> {
    const lookup = DECISION_ID.test(id) ? id : ABSENT_ID;
    const raw = await this.redis.hget(bucketKey(this.keys, lookup), lookup);
    return raw === null || lookup !== id ? null : decodeRecord(id, raw);
  }

  async read(id: string): Promise<DecisionView | null> {
    const stored = await this.readStored(id);
    return stored ? this.view(stored) : null;
  }

  /** Joins a stored record with its shared evidence, snapshot manifest and rule set. */
  async view(stored: StoredRecord): Promise<DecisionView> {
    const { snapshotVersion, verdict } = stored;
    const evidenceKey = typeof stored.evidence === 'string' && snapshotVersion !== null
      ? this.keys.decisionEvidence(snapshotVersion, verdict.mc_number, stored.evidence)
      : null;
    const [shared, manifest, ruleset] = await Promise.all([
      evidenceKey ? this.cached(this.shared, evidenceKey, async () => {
        const raw = await this.redis.get(evidenceKey);
        return raw === null ? null : sharedEvidenceSchema.parse(JSON.parse(raw)) as SharedEvidence;
      }) : null,
      snapshotVersion ? this.cached(this.manifests, snapshotVersion, async () => {
        const raw = await this.redis.get(this.keys.snapshotManifest(snapshotVersion));
        return raw === null ? null : decodeSnapshotMeta(raw, this.keys.snapshotManifest(snapshotVersion));
      }) : null,
      verdict.ruleset_version !== null ? this.cached(this.rulesets, verdict.ruleset_version, async () => {
        const raw = await this.redis.get(this.keys.ruleset(verdict.ruleset_version as number));
        return raw === null ? null : decodePublishedRuleSet(raw);
      }) : null,
    ]);
    if (evidenceKey && !shared) throw new Error(`decision ${stored.decisionId}: shared evidence ${evidenceKey} is missing`);
    if (snapshotVersion && !manifest) throw new Error(`decision ${stored.decisionId}: manifest of snapshot ${snapshotVersion} is missing`);
    const evidence: Verdict['evidence'] = {
      snapshot_version: snapshotVersion,
      reasons: shared ? shared.reasons : stored.evidence as Verdict['evidence']['reasons'],
      sources: sourceEvidence(manifest),
    };
    const policy = shared?.policy ?? (stored.policy ? { ...stored.policy, waived: [] } : undefined);
    if (policy) evidence.policy = policy;
    const { overrides, ...fields } = verdict;
    const full: Verdict = { ...fields, carrier: shared?.carrier ?? null, ...(overrides === undefined ? {} : { overrides }), evidence };
    const { context } = stored;
    return {
      decision_id: stored.decisionId,
      kind: context.kind,
      verdict: full,
      key_id: context.keyId,
      account: context.account,
      request_id: context.requestId,
      reference: context.reference,
      override_ids: (overrides ?? []).map((override) => override.id),
      batch: context.jobId !== null && context.row !== null ? { job_id: context.jobId, row: context.row } : null,
      ruleset: ruleset ? { version: ruleset.version, published_at: ruleset.published_at, sha256: ruleSetHash(ruleset) } : null,
      snapshot: manifest,
    };
  }

  /** A rule set this reader has loaded (export: the full body goes into the signed file manifest). */
  loadedRuleset(version: number): PublishedRuleSet | null {
    return this.rulesets.get(version) ?? null;
  }

  private async cached<K, V>(map: Map<K, V>, key: K, load: () => Promise<V>): Promise<V> {
    if (this.cache && map.has(key)) return map.get(key) as V;
    const value = await load();
    // Misses are cached too: an export must not ask Redis again for every record of a missing rule set.
    if (this.cache) map.set(key, value);
    return value;
  }
}
