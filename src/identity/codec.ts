// Compact encodings of the identity history. One module owns them so the recorder and the readers agree.
//
// Current identity (one hash field per DOT, ~60-80 bytes): contact values in full, because a broker's first
// question about a changed phone or email is what it was before; names, addresses and officers as 32-bit
// fingerprints (src/core/identity.ts), because their full text would double the size and the snapshot keeps them;
// then the USDOT status and, for a carrier that changed in the last year, its latest change per kind:
//   2|phone|cell|email|fp(legal)|fp(dba)|fp(physical)|fp(mailing)|fp(officers)|status|signals
// (version 1 lines, without the last two, are still read).
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

/** One kind's latest change kept on the line: [field index, old (null: only a fingerprint was kept), new, first-seen day]. */
export type RecentChange = [number, string | null, string, number];

/**
 * What the line keeps besides the values, so the ingest can put identity signals on the carrier record without
 * reading the history: the latest change per kind (contact, address, name) and the latest reactivation
 * [day active again, first day seen inactive], each only while younger than IDENTITY_HORIZON_DAYS.
 */
export interface RecentSignals { c?: RecentChange; a?: RecentChange; n?: RecentChange; r?: [number, number] }

/** The current identity line: values, USDOT status ('A', 'I<base-36 day first seen inactive>', '' unknown), signals. */
export interface CurrentIdentity { values: StoredIdentity; status: string; recent: RecentSignals }

const cleanRecent = (value: string | null) => (value === null ? null : value.replace(/\|/g, ' ').slice(0, 100));

/** Version 2 line: 2|phone|cell|email|fp(legal)|fp(dba)|fp(physical)|fp(mailing)|fp(officers)|status|signals JSON. */
export function encodeIdentity(stored: StoredIdentity, status = '', recent: RecentSignals = {}): string {
  const signals: RecentSignals = {};
  for (const kind of ['c', 'a', 'n'] as const) {
    const change = recent[kind];
    if (change) signals[kind] = [change[0], cleanRecent(change[1]), cleanRecent(change[2]) ?? '', change[3]];
  }
  if (recent.r) signals.r = recent.r;
  const json = Object.keys(signals).length > 0 ? JSON.stringify(signals) : '';
  return ['2', ...ORDER.map((field) => stored[field]), status, json].join('|');
}

/** Reads version 1 lines (values only) and version 2 lines; null for anything else. */
export function decodeCurrent(encoded: string): CurrentIdentity | null {
  const parts = encoded.split('|');
  const v1 = parts[0] === '1' && parts.length === ORDER.length + 1;
  const v2 = parts[0] === '2' && parts.length === ORDER.length + 3;
  if (!v1 && !v2) return null;
  const values = {} as StoredIdentity;
  ORDER.forEach((field, i) => { values[field] = parts[i + 1] ?? ''; });
  let recent: RecentSignals = {};
  const json = v2 ? parts[ORDER.length + 2] ?? '' : '';
  if (json !== '') {
    try {
      recent = JSON.parse(json) as RecentSignals;
    } catch {
      recent = {};
    }
  }
  return { values, status: v2 ? parts[ORDER.length + 1] ?? '' : '', recent };
}

export function decodeIdentity(encoded: string): StoredIdentity | null {
  return decodeCurrent(encoded)?.values ?? null;
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
  /** The day (UTC) that ingest ran: what the identity rules' windows count from (absent in entries written before it). */
  first_seen_on?: string;
}

type EncodedChange = [number, string | null, string, string, string, string?];

export function encodeChange(change: IdentityChange): string {
  const encoded: EncodedChange = [IDENTITY_FIELDS.indexOf(change.field), change.old, change.new, change.snapshot, change.seen_on];
  if (change.first_seen_on !== undefined) encoded.push(change.first_seen_on);
  return JSON.stringify(encoded);
}

export function decodeChange(encoded: string): IdentityChange | null {
  try {
    const value = JSON.parse(encoded) as unknown;
    if (!Array.isArray(value) || (value.length !== 5 && value.length !== 6)) return null;
    const [index, old, now, snapshot, seenOn, firstSeenOn] = value as EncodedChange;
    const field = IDENTITY_FIELDS[index];
    if (field === undefined || typeof now !== 'string' || typeof snapshot !== 'string' || typeof seenOn !== 'string') return null;
    const change: IdentityChange = { field, old: typeof old === 'string' ? old : null, new: now, snapshot, seen_on: seenOn };
    if (typeof firstSeenOn === 'string') change.first_seen_on = firstSeenOn;
    return change;
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
