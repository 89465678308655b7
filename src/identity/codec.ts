// Compact encodings of the identity history. One module owns them so the recorder and the readers agree.
//
// Current identity (one hash field per DOT, ~60-80 bytes): contact values in full, because a broker's first
// question about a changed phone or email is what it was before; names, addresses and officers as 32-bit
// fingerprints (src/core/identity.ts), because their full text would double the size and the snapshot keeps them:
//   1|phone|cell|email|fp(legal)|fp(dba)|fp(physical)|fp(mailing)|fp(officers)
// History entry (one list element per change): JSON [field index, old, new, snapshot version, census as-of day].
// `old` is null when only a fingerprint of it was kept and no earlier entry of the history names it.
import { fingerprint, IDENTITY_FIELDS, type IdentityField, type IdentityValues } from '../core/identity.js';

/** Fields kept in full (their old value is known at the first change). */
export const FULL_FIELDS: ReadonlySet<IdentityField> = new Set(['phone', 'cell_phone', 'email']);

/** The current identity as stored: a full value or a fingerprint per field. */
export type StoredIdentity = Record<IdentityField, string>;

const clean = (value: string) => value.replace(/\|/g, ' ');

export function storedForm(values: IdentityValues): StoredIdentity {
  const out = {} as StoredIdentity;
  for (const field of IDENTITY_FIELDS) out[field] = FULL_FIELDS.has(field) ? clean(values[field]) : fingerprint(values[field]);
  return out;
}

/** Field order of the stored line: the full fields first. */
const ORDER: readonly IdentityField[] = ['phone', 'cell_phone', 'email', 'legal_name', 'dba_name', 'physical_address', 'mailing_address', 'officers'];

export function encodeIdentity(stored: StoredIdentity): string {
  return ['1', ...ORDER.map((field) => stored[field])].join('|');
}

export function decodeIdentity(encoded: string): StoredIdentity | null {
  const parts = encoded.split('|');
  if (parts[0] !== '1' || parts.length !== ORDER.length + 1) return null;
  const out = {} as StoredIdentity;
  ORDER.forEach((field, i) => { out[field] = parts[i + 1] ?? ''; });
  return out;
}

export interface IdentityChange {
  field: IdentityField;
  /** Normalised value before; null when only its fingerprint was kept. '' means the field was blank. */
  old: string | null;
  new: string;
  /** Snapshot version whose ingest first saw the change. */
  snapshot: string;
  /** The census's own as-of date (YYYY-MM-DD) of that ingest. */
  seen_on: string;
}

type EncodedChange = [number, string | null, string, string, string];

export function encodeChange(change: IdentityChange): string {
  const encoded: EncodedChange = [IDENTITY_FIELDS.indexOf(change.field), change.old, change.new, change.snapshot, change.seen_on];
  return JSON.stringify(encoded);
}

export function decodeChange(encoded: string): IdentityChange | null {
  try {
    const value = JSON.parse(encoded) as unknown;
    if (!Array.isArray(value) || value.length !== 5) return null;
    const [index, old, now, snapshot, seenOn] = value as EncodedChange;
    const field = IDENTITY_FIELDS[index];
    if (field === undefined || typeof now !== 'string' || typeof snapshot !== 'string' || typeof seenOn !== 'string') return null;
    return { field, old: typeof old === 'string' ? old : null, new: now, snapshot, seen_on: seenOn };
  } catch {
    return null;
  }
}

/** Fields whose stored form differs; the old value is the stored one for full fields, null otherwise. */
export function diffIdentity(before: StoredIdentity, values: IdentityValues): Array<{ field: IdentityField; old: string | null; new: string }> {
  const after = storedForm(values);
  const changes: Array<{ field: IdentityField; old: string | null; new: string }> = [];
  for (const field of IDENTITY_FIELDS) {
    if (before[field] === after[field]) continue;
    changes.push({ field, old: FULL_FIELDS.has(field) ? before[field] : null, new: values[field] });
  }
  return changes;
}
