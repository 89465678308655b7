// Legal holds on the decision archive: accounts and MC numbers whose archived records are never deleted, however
// old (DECISION_ARCHIVE_YEARS does not apply to a segment holding one of their records). Two sources, unioned:
// DECISION_LEGAL_HOLD in the config (standing holds, set by deployment) and holds placed with
// `decisions legal-hold place`, kept in the archive store itself under legal-hold/ (so a hold lives with the
// records it protects and survives the loss of Redis). Every place and release also writes an entry to
// legal-hold/log/, which is never rewritten: counsel can show when a hold was placed, by whom and why.
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { normaliseMcNumber } from '../core/mc-number.js';
import type { ArchiveStore } from './archive-store.js';

export interface LegalHold {
  accounts: ReadonlySet<string>;
  mcs: ReadonlySet<string>;
}

export type HoldKind = 'account' | 'mc';

const HOLD_PREFIX = 'legal-hold/';
const LOG_PREFIX = 'legal-hold/log/';

const holdSchema = z.object({
  kind: z.enum(['account', 'mc']),
  value: z.string().min(1),
  reason: z.string(),
  by: z.string().nullable(),
  placed_at: z.string(),
});

export type PlacedHold = z.infer<typeof holdSchema>;

/** The canonical value of a hold: MC numbers normalised ("MC-000123" → "123"); throws on a malformed one. */
export function holdValue(kind: HoldKind, raw: string): string {
  const value = kind === 'mc' ? normaliseMcNumber(raw) : raw.trim();
  if (!value || value.includes('/')) throw new Error(`"${raw}" is not ${kind === 'mc' ? 'an MC number' : 'an account name'}`);
  return value;
}

/** DECISION_LEGAL_HOLD: `account:NAME` and `mc:NUMBER`, comma-separated. */
export function parseLegalHold(text: string): LegalHold {
  const accounts = new Set<string>();
  const mcs = new Set<string>();
  for (const entry of text.split(',').map((item) => item.trim()).filter((item) => item !== '')) {
    const match = /^(account|mc):(.+)$/.exec(entry);
    if (!match) throw new Error(`DECISION_LEGAL_HOLD entry "${entry}" is not account:NAME or mc:NUMBER`);
    const kind = match[1] === 'account' ? 'account' : 'mc';
    (kind === 'account' ? accounts : mcs).add(holdValue(kind, match[2] as string));
  }
  return { accounts, mcs };
}

const holdKey = (kind: HoldKind, value: string) => `${HOLD_PREFIX}${kind}/${encodeURIComponent(value)}.json`;

async function log(store: ArchiveStore, entry: Record<string, unknown>): Promise<void> {
  const at = new Date().toISOString();
  await store.put(`${LOG_PREFIX}${at.replace(/[:.]/g, '')}-${randomBytes(4).toString('hex')}.json`, Buffer.from(`${JSON.stringify({ at, ...entry })}\n`), { ifAbsent: true });
}

/** Places a hold (idempotent: an existing hold is kept as it was placed). Resolves false when it already existed. */
export async function placeHold(store: ArchiveStore, kind: HoldKind, raw: string, reason: string, by: string | null): Promise<boolean> {
  const value = holdValue(kind, raw);
  const hold: PlacedHold = { kind, value, reason, by, placed_at: new Date().toISOString() };
  const placed = await store.put(holdKey(kind, value), Buffer.from(`${JSON.stringify(hold)}\n`), { ifAbsent: true });
  if (placed) await log(store, { action: 'place', kind, value, reason, by });
  return placed;
}

/** Releases a placed hold; resolves false when there was none (a hold from DECISION_LEGAL_HOLD is not released here). */
export async function releaseHold(store: ArchiveStore, kind: HoldKind, raw: string, reason: string, by: string | null): Promise<boolean> {
  const value = holdValue(kind, raw);
  if ((await store.get(holdKey(kind, value))) === null) return false;
  await log(store, { action: 'release', kind, value, reason, by });
  await store.delete(holdKey(kind, value));
  return true;
}

/** Holds placed in the store (not the config's). */
export async function placedHolds(store: ArchiveStore): Promise<PlacedHold[]> {
  const holds: PlacedHold[] = [];
  for (const key of await store.list(HOLD_PREFIX)) {
    if (key.startsWith(LOG_PREFIX)) continue;
    const bytes = await store.get(key);
    if (bytes) holds.push(holdSchema.parse(JSON.parse(bytes.toString('utf8'))));
  }
  return holds;
}

/** The holds in force: the config's and the store's. */
export async function holdsInForce(store: ArchiveStore, configured: LegalHold): Promise<LegalHold> {
  const accounts = new Set(configured.accounts);
  const mcs = new Set(configured.mcs);
  for (const hold of await placedHolds(store)) (hold.kind === 'account' ? accounts : mcs).add(hold.value);
  return { accounts, mcs };
}
