// Realistic archive lines for the archive benchmarks: the same mix as bench/decision-bytes.ts (2,000 distinct
// carriers, a tenth with reasons, half with a caller reference, UUID request ids, 50 keys over 10 accounts),
// built through decide() and toVerdict() as the service builds them, then put in the archive's line form.
import { randomUUID } from 'node:crypto';
import { generateApiKey } from '../src/auth/api-key.js';
import type { CarrierRecord, SnapshotMeta } from '../src/core/carrier.js';
import { decide } from '../src/core/decide.js';
import { DEFAULT_RULE_SET } from '../src/core/ruleset.js';
import type { ArchiveLine } from '../src/decisions/archive-format.js';
import { toVerdict } from '../src/decisions/index.js';

const sha = (n: number) => n.toString(16).padStart(64, 'a');

export function benchSnapshot(nowMs: number): SnapshotMeta {
  const iso = new Date(nowMs).toISOString();
  return {
    version: 'vbench01', data_as_of: iso, created_at: iso, carrier_count: 1_000_000,
    sources: Object.fromEntries(['census', 'authority', 'insurance', 'insurance_history', 'revocations', 'oos', 'ofac_sdn', 'ofac_cons', 'sam', 'dnu']
      .map((name, index) => [name, { present: true, as_of: iso, rows: 100_000, files: [{ name: `${name}.csv`, sha256: sha(index), bytes: 1e7, rows: 100_000 }] }])),
  } as unknown as SnapshotMeta;
}

function carrier(index: number, recent: string): CarrierRecord {
  const mc = String(100_000 + index);
  const base: CarrierRecord = {
    mc, dot: String(3_000_000 + index), legal_name: `SAMPLE TRUCKING ${index} LLC`, dba_name: index % 3 === 0 ? `ST ${index}` : null, usdot_status: 'A',
    authority: { status: 'active', granted_on: '2015-03-01', revocation_pending_on: null, revoked_on: null },
    insurance: { bipd_on_file_usd: 1_000_000, bipd_required_usd: 750_000, cancellation_effective_on: null },
    hazmat: false, safety_rating: index % 2 === 0 ? 'S' : null, mcs150_date: recent, oos_order: null, hits: [],
  };
  if (index % 10 === 1) base.safety_rating = 'C';
  if (index % 10 === 3) base.insurance = { ...base.insurance, bipd_on_file_usd: 300_000 };
  if (index % 20 === 7) base.oos_order = { since: recent, reason: 'New Entrant Revoked - Refusal of Audit/No Contact' };
  return base;
}

/** Yields `count` lines whose decision times step by `stepMs` from `startMs` (ids in time order). */
export function* benchLines(count: number, startMs: number, stepMs: number, carriers = 2000): Generator<ArchiveLine> {
  const snapshot = benchSnapshot(startMs);
  const ruleset = { version: 3, published_at: new Date(startMs).toISOString(), rules: DEFAULT_RULE_SET };
  const recent = new Date(startMs - 200 * 86_400_000).toISOString().slice(0, 10);
  const pool = Array.from({ length: carriers }, (_, index) => carrier(index, recent));
  const keyIds = Array.from({ length: 50 }, () => generateApiKey().id);
  for (let index = 0; index < count; index++) {
    const record = pool[(index * 7919) % carriers] as CarrierRecord;
    const nowMs = startMs + Math.floor(index * stepMs);
    const verdict = toVerdict(decide({
      lookup: { kind: 'found', record }, ruleset, snapshot, backendAvailable: true, maxDataAgeSeconds: 10 * 365 * 86_400, nowMs,
    }), record.mc, nowMs, true);
    const { sources: _sources, ...evidence } = verdict.evidence;
    yield {
      decision_id: verdict.decision_id, kind: 'check', verdict: { ...verdict, evidence }, key_id: keyIds[index % keyIds.length] as string,
      account: `account-${index % 10}`, request_id: randomUUID(), reference: index % 2 === 0 ? `LD-${(index * 31).toString().padStart(9, '0')}` : null,
      override_ids: [], batch: null, ruleset: { version: 3, published_at: ruleset.published_at, sha256: sha(99) },
    };
  }
}
