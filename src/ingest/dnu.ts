// The broker's own do-not-use list: a CSV (mc_number,reason,added_at,expires_at) and/or the live Redis hash
// keys.doNotUse (MC → JSON {reason, added_at, expires_at}) maintained with `carrier-eligibility dnu`.
// Ingest merges both into the snapshot as `dnu` hits. An expired entry (expires_at before today) is ignored.
import type { RedisClient } from '../redis/connection.js';
import { parseInstant } from '../core/dates.js';
import { normaliseMcNumber } from '../core/mc-number.js';
import { applyDoNotUse } from '../store/do-not-use.js';
import type { RedisKeys } from '../store/keys.js';
import { readCsv } from './csv.js';
import { IngestError } from './errors.js';
import { HeaderMap } from './fields.js';
import type { SourceStats } from './sources/common.js';

export interface DnuEntry {
  reason: string;
  added_at: string;
  expires_at: string | null;
}

/**
 * Validates one entry; returns the normalised MC or a reason it is unusable. Dates go through the one strict parser
 * (YYYY-MM-DD or RFC 3339 with a zone; "2026-02-30" is refused, never rolled over into a lapsed ban). An added_at
 * in the future is refused; `requireFutureExpiry` (the CLI's `dnu add`) also refuses an expiry already passed,
 * which would add a ban that never applies.
 */
export function parseDnuEntry(mcRaw: string, reason: string, addedAt: string, expiresAt: string, nowMs = Date.now(), requireFutureExpiry = false):
  { mc: string; entry: DnuEntry } | { error: string; field: string } {
  const mc = normaliseMcNumber(mcRaw);
  if (!mc) return { error: `not an MC number: "${mcRaw}"`, field: 'mc_number' };
  if (reason.trim() === '') return { error: 'reason is required', field: 'reason' };
  let added = new Date(nowMs).toISOString();
  if (addedAt.trim() !== '') {
    const parsed = parseInstant(addedAt, { nowMs, notFuture: true });
    if ('error' in parsed) return { error: parsed.error, field: 'added_at' };
    added = parsed.iso;
  }
  let expires: string | null = null;
  if (expiresAt.trim() !== '') {
    const parsed = parseInstant(expiresAt, { nowMs, notPast: requireFutureExpiry });
    if ('error' in parsed) return { error: parsed.error, field: 'expires_at' };
    expires = parsed.iso;
  }
  return { mc, entry: { reason: reason.trim(), added_at: added, expires_at: expires } };
}

/** Active unless it has a valid expiry that has passed; an unreadable expiry (a hand-edited hash) keeps it active. */
export function isDnuActive(entry: DnuEntry, nowMs: number): boolean {
  if (entry.expires_at === null) return true;
  const parsed = parseInstant(entry.expires_at, { nowMs });
  return 'error' in parsed || parsed.ms > nowMs;
}

/**
 * Two entries for one MC (two file rows, or the file and the live list): the ban that lasts longer, never the first
 * or the last. A permanent ban (no expiry) beats any temporary one; an unreadable expiry counts as permanent.
 */
export function longerBan(a: DnuEntry, b: DnuEntry): DnuEntry {
  const until = (entry: DnuEntry): number => {
    if (entry.expires_at === null) return Infinity;
    const parsed = parseInstant(entry.expires_at, { nowMs: 0 });
    return 'error' in parsed ? Infinity : parsed.ms;
  };
  return until(b) > until(a) ? b : a;
}

export async function loadDnuFile(file: string, stats: SourceStats, onBytes: (bytes: number, chunk?: Buffer) => void, nowMs = Date.now()): Promise<Map<string, DnuEntry>> {
  const entries = new Map<string, DnuEntry>();
  let header: HeaderMap | null = null;
  for await (const { row, cells } of readCsv(file, { onBytes })) {
    if (!header) {
      header = new HeaderMap(file, cells, ['mc_number', 'reason']);
      continue;
    }
    stats.rows += 1;
    const fields = header.reader(row, cells);
    const parsed = parseDnuEntry(fields.text('mc_number'), fields.text('reason'), fields.text('added_at'), fields.text('expires_at'), nowMs);
    if ('error' in parsed) throw new IngestError(file, row, parsed.field, parsed.error);
    const earlier = entries.get(parsed.mc);
    entries.set(parsed.mc, earlier ? longerBan(earlier, parsed.entry) : parsed.entry);
  }
  return entries;
}

export async function readDnuHash(redis: RedisClient, keys: RedisKeys): Promise<Map<string, DnuEntry>> {
  const entries = new Map<string, DnuEntry>();
  const stream = redis.hscanStream(keys.doNotUse, { count: 1000 });
  for await (const chunk of stream as AsyncIterable<string[]>) {
    for (let i = 0; i + 1 < chunk.length; i += 2) {
      const mc = chunk[i] as string;
      try {
        entries.set(mc, JSON.parse(chunk[i + 1] as string) as DnuEntry);
      } catch {
        // A hand-edited value still blocks: fail closed with the raw text as the reason.
        entries.set(mc, { reason: chunk[i + 1] as string, added_at: '', expires_at: null });
      }
    }
  }
  return entries;
}

// Writes go through src/store/do-not-use.ts: list, change log and epoch in one step; every replica applies
// the change within a second (src/state/live-state.ts) without reloading the whole list.
export async function addDnu(redis: RedisClient, keys: RedisKeys, mc: string, entry: DnuEntry): Promise<void> {
  await applyDoNotUse(redis, keys, [{ op: 'set', mc, entry: JSON.stringify(entry) }]);
}

/** Adds many entries in few atomic steps (500 per step). */
export async function importDnu(redis: RedisClient, keys: RedisKeys, entries: ReadonlyMap<string, DnuEntry>): Promise<number> {
  const changes = [...entries].map(([mc, entry]) => ({ op: 'set' as const, mc, entry: JSON.stringify(entry) }));
  return (await applyDoNotUse(redis, keys, changes)).changed;
}

export async function removeDnu(redis: RedisClient, keys: RedisKeys, mc: string): Promise<boolean> {
  return (await applyDoNotUse(redis, keys, [{ op: 'del', mc, entry: '' }])).changed > 0;
}
