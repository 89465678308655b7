// The fixed clock and the clean carrier the pure decision tests (decide, evidence) build their cases from, so
// both suites judge the same record at the same instant.
import type { CarrierRecord } from '../../src/core/carrier.js';

export const NOW = Date.parse('2026-11-21T12:00:00Z');
export const DAY = 86_400_000;
export const daysAgo = (days: number): string => new Date(NOW - days * DAY).toISOString().slice(0, 10);
export const daysAhead = (days: number): string => new Date(NOW + days * DAY).toISOString().slice(0, 10);

/** A found, clean, eligible carrier (MC 123456) as of NOW; overrides change single fields. */
export function carrier(overrides: Partial<CarrierRecord> = {}): CarrierRecord {
  return {
    mc: '123456', dot: '344554', legal_name: 'HULL COOPERATIVE ASSOCIATION', dba_name: null, usdot_status: 'A',
    authority: { status: 'active', granted_on: '2010-01-01', revocation_pending_on: null, revoked_on: null },
    insurance: { bipd_on_file_usd: 1_000_000, bipd_required_usd: 750_000, cancellation_effective_on: null },
    hazmat: false, safety_rating: 'S', mcs150_date: daysAgo(100), oos_order: null, hits: [],
    ...overrides,
  };
}
