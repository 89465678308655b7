// Fingerprints of what an override or clearance was granted on: a list entry as the list describes it, the
// facts behind a reason, the carrier's names as screened. Short SHA-256 prefixes of a canonical JSON, so two
// equal descriptions always give the same fingerprint and any changed field a different one.
import { createHash } from 'node:crypto';
import type { Fact, ReasonEvidence } from '../core/evidence.js';

function digest(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 32);
}

function pick(facts: Record<string, Fact>, names: readonly string[]): Array<[string, Fact]> {
  return names.filter((name) => facts[name] !== undefined).map((name) => [name, facts[name] as Fact]);
}

/**
 * What a list entry says about the listed party: its name that matched, programs, entity type, identifiers and
 * remarks. Not the score, the list's as-of date or which carrier name matched: those move without the entry
 * changing (a new list file every day), and a carrier name change is caught by namesFingerprint.
 */
const ENTRY_FIELDS = ['matched_name', 'programs', 'entity_type', 'uei', 'note', 'confirmed'] as const;

export function entryFingerprint(item: Pick<ReasonEvidence, 'source' | 'record_id' | 'facts'>): string {
  return digest([item.source, item.record_id, pick(item.facts, ENTRY_FIELDS)]);
}

/** The facts behind a non-sanctions reason (the BIPD amount on file, the grant date, the rating, ...). */
export function factsFingerprint(item: Pick<ReasonEvidence, 'reason' | 'source' | 'record_id' | 'facts'>): string {
  const names = Object.keys(item.facts).sort();
  return digest([item.reason, item.source, item.record_id, pick(item.facts, names)]);
}

/** Case and spacing alone are not a new name; any other change (a legal form, a word) is. */
const plain = (name: string | null | undefined): string => (name ?? '').toUpperCase().replace(/\s+/g, ' ').trim();

/** The carrier's names as screened. */
export function namesFingerprint(carrier: { legal_name: string; dba_name: string | null } | null): string {
  return digest([plain(carrier?.legal_name), plain(carrier?.dba_name)]);
}
