// JSON the service wrote to Redis and reads back, decoded by zod here, in one place: snapshot metas (and manifests,
// which have the same shape), published rule sets and a batch chunk's stored rows. A value that does not decode
// is an error (snapshot meta, rows) or absent (rule set: verdicts are then degraded), never a cast that lets a
// malformed value through to a verdict. Unknown fields are kept, so a newer writer's additions pass through.
import { z } from 'zod';
import type { SnapshotMeta } from '../core/carrier.js';
import { ruleSetSchema, SOURCE_NAMES, type PublishedRuleSet } from '../core/ruleset.js';

const sourceFile = z.looseObject({ name: z.string(), sha256: z.string(), bytes: z.number(), rows: z.number() });

const sourceFreshness = z.looseObject({
  present: z.boolean(),
  as_of: z.string().nullable(),
  rows: z.number(),
  file: z.string().optional(),
  as_of_from: z.enum(['content', 'flag', 'file_name']).optional(),
  ingested_at: z.string().optional(),
  files: z.array(sourceFile).optional(),
});

const snapshotMetaSchema: z.ZodType<SnapshotMeta> = z.looseObject({
  version: z.string(),
  data_as_of: z.string(),
  created_at: z.string(),
  carrier_count: z.number(),
  sources: z.partialRecord(z.enum(SOURCE_NAMES), sourceFreshness),
});

/** A snapshot meta or manifest as stored; throws, naming the key, when it is not one. */
export function decodeSnapshotMeta(raw: string, key: string): SnapshotMeta {
  const parsed = snapshotMetaSchema.safeParse(parseJson(raw));
  if (!parsed.success) throw new Error(`${key}: not a snapshot meta (${parsed.error.issues[0]?.message ?? 'invalid'})`);
  return parsed.data;
}

const publishedRuleSetSchema = z.looseObject({ version: z.number(), published_at: z.unknown().optional(), rules: ruleSetSchema });

/** A published rule set as stored; null when it is not one (the verdicts it would judge are then degraded). */
export function decodePublishedRuleSet(raw: string): PublishedRuleSet | null {
  const parsed = publishedRuleSetSchema.safeParse(parseJson(raw));
  if (!parsed.success) return null;
  return { version: parsed.data.version, published_at: String(parsed.data.published_at ?? ''), rules: parsed.data.rules };
}

const storedRows = z.array(z.tuple([z.string().nullable(), z.string().nullable(), z.string().nullable(), z.string().nullable()]));

/** A batch chunk's rows as stored ([mc, dot, uei, ref]); throws when they are not. */
export function decodeStoredRows(raw: string, key: string): Array<[string | null, string | null, string | null, string | null]> {
  const parsed = storedRows.safeParse(parseJson(raw));
  if (!parsed.success) throw new Error(`${key}: not a chunk's rows (${parsed.error.issues[0]?.message ?? 'invalid'})`);
  return parsed.data;
}

/** JSON.parse, with undefined for text that is not JSON (the schema then rejects it). */
function parseJson(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}
