// Redis keys of the identity history. Independent of snapshot versions (a snapshot's retirement never touches
// them). Untagged like the carrier buckets, so they spread over every Cluster slot; every command names one key.
//   identity:cur:<bucket>  hash DOT → the carrier's current identity, compact (src/identity/codec.ts)
//   identity:hist:<dot>    list of the carrier's recorded changes, oldest first (only carriers that changed)
//   identity:changes       stream: per changed carrier and ingest, its DOT, MCs and changes (trimmed to ~200,000)
export const IDENTITY_BUCKETS = 16_384;

export function identityBucket(dot: number): number {
  return dot % IDENTITY_BUCKETS;
}

export function identityKeys(prefix: string) {
  return {
    current: (bucket: number) => `${prefix}identity:cur:${bucket}`,
    history: (dot: number | string) => `${prefix}identity:hist:${dot}`,
    /** Stream of the changes each ingest recorded (one entry per carrier), read by monitoring's identity.changed events. */
    changes: `${prefix}identity:changes`,
  } as const;
}

export type IdentityKeys = ReturnType<typeof identityKeys>;
