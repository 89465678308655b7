// Encoding of carrier records inside snapshot hashes. One module owns it so ingest and lookups always agree.
// JSON for now: readable in redis-cli during an incident; the value is small enough for listpack hashes.
import type { CarrierLookup, CarrierRecord } from '../core/carrier.js';

export type StoredCarrier = CarrierRecord | { ambiguous: string[] };

export function encodeCarrier(value: StoredCarrier): string {
  return JSON.stringify(value);
}

export function decodeCarrier(mc: string, encoded: string | null): CarrierLookup {
  if (encoded === null) return { kind: 'not_found' };
  const value = JSON.parse(encoded) as StoredCarrier;
  if ('ambiguous' in value) return { kind: 'ambiguous', mc, dot_numbers: value.ambiguous };
  return { kind: 'found', record: value };
}
