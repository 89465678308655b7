// Records carrier identity changes as the census ingest reads it (IdentitySink of src/ingest). A chunk's current
// identities are read in one round trip. A carrier seen for the first time is stored at once (no change to record);
// a change is held until the snapshot flips, then appended to the carrier's history with the census's own date, so
// an aborted ingest records nothing and the next one sees the same change again. Each chunk's carriers get back
// their identity signals (latest change per kind, reactivation) for their records; after the pass, the
// shared-contact index adds the phones and emails they share.
import type { IdentitySignals, SharedContactFact } from '../core/carrier.js';
import { DAY_MS } from '../core/dates.js';
import { IDENTITY_FIELDS, IDENTITY_KIND, type IdentityField } from '../core/identity.js';
import { IDENTITY_HORIZON_DAYS } from '../core/ruleset.js';
import type { IdentityObservation, IdentitySink } from '../ingest/identity-sink.js';
import type { RedisClient } from '../redis/connection.js';
import { sendKeyed, type KeyedCommand } from '../redis/keyed-batch.js';
import type { RedisKeys } from '../store/keys.js';
import {
  decodeChange, decodeCurrent, diffIdentity, encodeChange, encodeIdentity, storedForm,
  type IdentityChange, type RecentChange, type RecentSignals,
} from './codec.js';
import { NO_EXCEPTIONS, type ContactExceptions } from './exceptions.js';
import { identityBucket, type IdentityKeys } from './keys.js';
import { matchesKey, SharedContactIndex, type SharedIndexStats } from './shared-index.js';

/** Changes kept per carrier (oldest dropped first): at today's change rates many years, well over the two required. */
export const HISTORY_MAX = 200;

const KIND_CODE = { name: 'n', contact: 'c', address: 'a' } as const;
const PART = { c: 'contact', a: 'address', n: 'name' } as const;

interface Pending { line: string; mcs: readonly number[]; changes: Array<Omit<IdentityChange, 'snapshot' | 'seen_on'>> }

/** Entries the change stream keeps (about: XADD trims approximately): far more than one day's changes. */
export const CHANGE_STREAM_MAX = 200_000;

const isoDay = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);

/** The USDOT status the line keeps next, and the reactivation an inactive-to-active move makes [day, inactive since]. */
function nextStatus(previous: string, active: boolean | null, today: number): { status: string; reactivated?: [number, number] } {
  const inactiveSince = previous.startsWith('I') ? parseInt(previous.slice(1), 36) : null;
  if (active === null) return { status: previous };
  if (active) return inactiveSince !== null && Number.isFinite(inactiveSince) ? { status: 'A', reactivated: [today, inactiveSince] } : { status: 'A' };
  return { status: inactiveSince !== null ? previous : `I${today.toString(36)}` };
}

/** The line's signals still inside the horizon. */
function pruned(recent: RecentSignals, horizon: number): RecentSignals {
  const out: RecentSignals = {};
  for (const kind of ['c', 'a', 'n'] as const) {
    const change = recent[kind];
    if (change && change[3] >= horizon) out[kind] = change;
  }
  if (recent.r && recent.r[0] >= horizon) out.r = recent.r;
  return out;
}

function toSignals(recent: RecentSignals): IdentitySignals | null {
  const signals: IdentitySignals = {};
  for (const kind of ['c', 'a', 'n'] as const) {
    const change = recent[kind];
    if (!change) continue;
    signals[PART[kind]] = { field: IDENTITY_FIELDS[change[0]] ?? 'unknown', old: change[1], new: change[2], first_seen_on: isoDay(change[3]) };
  }
  if (recent.r) signals.reactivated = { on: isoDay(recent.r[0]), after: 'inactivity', since: isoDay(recent.r[1]) };
  return Object.keys(signals).length > 0 ? signals : null;
}

export interface RecorderOptions {
  /** Known legitimate shared contacts (src/identity/exceptions.ts); none by default. */
  exceptions?: ContactExceptions;
}

export class IdentityRecorder implements IdentitySink {
  private readonly pending = new Map<number, Pending>();
  private readonly shared: SharedContactIndex;
  /** Figures of the last shared-contact index written (for the ingest report and the bench). */
  sharedStats: SharedIndexStats | null = null;

  constructor(private readonly redis: RedisClient, private readonly keys: IdentityKeys, options: RecorderOptions = {}) {
    this.shared = new SharedContactIndex(options.exceptions ?? NO_EXCEPTIONS);
  }

  async observe(rows: readonly IdentityObservation[], nowMs: number): Promise<ReadonlyMap<number, IdentitySignals>> {
    const signals = new Map<number, IdentitySignals>();
    if (rows.length === 0) return signals;
    const today = Math.floor(nowMs / DAY_MS);
    const horizon = today - IDENTITY_HORIZON_DAYS;
    const replies = await sendKeyed(this.redis, rows.map((row): KeyedCommand => ['HGET', this.keys.current(identityBucket(row.dot)), String(row.dot)]));
    const writes: KeyedCommand[] = [];
    rows.forEach((row, i) => {
      this.shared.add(row.dot, row.identity);
      const reply = replies[i];
      const current = typeof reply === 'string' ? decodeCurrent(reply) : null;
      const status = nextStatus(current?.status ?? '', row.active, today);
      const recent = pruned(current?.recent ?? {}, horizon);
      if (status.reactivated) recent.r = status.reactivated;
      const stored = storedForm(row.identity);
      if (current === null) {
        writes.push(['HSET', this.keys.current(identityBucket(row.dot)), String(row.dot), encodeIdentity(stored, status.status, recent)]);
        return;
      }
      const seen = new Set<string>();
      const changes = diffIdentity(current.values, row.identity).map((change) => {
        const kind = KIND_CODE[IDENTITY_KIND[change.field] as keyof typeof KIND_CODE] as 'c' | 'a' | 'n' | undefined;
        const index = IDENTITY_FIELDS.indexOf(change.field);
        const earlier = kind ? current.recent[kind] : undefined;
        // The old value of a fingerprinted field is known when the line's latest change of its kind was this field.
        const old = change.old ?? (earlier && earlier[0] === index ? earlier[2] : null);
        // Several fields of one kind changed at once: the first in field order stands for the kind on the record.
        if (kind && !seen.has(kind)) {
          seen.add(kind);
          recent[kind] = [index, old, change.new, today] satisfies RecentChange;
        }
        return { field: change.field as IdentityField, old, new: change.new, first_seen_on: isoDay(today) };
      });
      const line = encodeIdentity(stored, status.status, recent);
      // Changes wait for the flip (abort-safe); a status move, pruning or an older line's format is written now.
      if (changes.length > 0) this.pending.set(row.dot, { line, mcs: row.mcs, changes });
      else if (line !== reply) writes.push(['HSET', this.keys.current(identityBucket(row.dot)), String(row.dot), line]);
      const found = toSignals(recent);
      if (found !== null) signals.set(row.dot, found);
    });
    await sendKeyed(this.redis, writes);
    return signals;
  }

  async shareIndex(version: string, keys: RedisKeys): Promise<ReadonlyMap<number, SharedContactFact[]>> {
    const { facts, stats } = await this.shared.write(this.redis, keys, version);
    this.sharedStats = stats;
    const out = new Map<number, SharedContactFact[]>();
    const dots = [...facts.keys()];
    for (let start = 0; start < dots.length; start += 1000) {
      const group = dots.slice(start, start + 1000);
      const unread = group.filter((dot) => !this.pending.has(dot));
      const replies = await sendKeyed(this.redis, unread.map((dot): KeyedCommand => ['HGET', this.keys.current(identityBucket(dot)), String(dot)]));
      const lines = new Map(unread.map((dot, i) => [dot, replies[i]]));
      for (const dot of group) {
        const raw = this.pending.get(dot)?.line ?? lines.get(dot);
        const values = typeof raw === 'string' ? decodeCurrent(raw)?.values : undefined;
        if (!values) continue;
        const shared: SharedContactFact[] = [];
        for (const item of facts.get(dot) ?? []) {
          const candidates = item.field === 'phone' ? [values.phone, values.cell_phone] : [values.email];
          const value = candidates.find((candidate) => matchesKey(candidate, item.key));
          if (value !== undefined) shared.push({ field: item.field, value, unrelated: item.unrelated, dots: item.dots });
        }
        if (shared.length > 0) out.set(dot, shared);
      }
    }
    return out;
  }

  async commit(info: { version: string; asOf: string }): Promise<{ changes: number; carriers: number }> {
    let changes = 0;
    const batch = 256;
    const pending = [...this.pending.entries()];
    for (let start = 0; start < pending.length; start += batch) {
      const group = pending.slice(start, start + batch);
      // Old values kept only as fingerprints come from the carrier's own earlier entries, when it has any.
      const histories = await sendKeyed(this.redis, group.map(([dot]): KeyedCommand => ['LRANGE', this.keys.history(dot), 0, -1]));
      const commands: KeyedCommand[] = [];
      group.forEach(([dot, p], i) => {
        const earlier = (histories[i] as string[] | null ?? []).map(decodeChange).filter((c): c is IdentityChange => c !== null);
        const entries = p.changes.map((change) => encodeChange({
          ...change,
          old: change.old ?? earlier.filter((e) => e.field === change.field).at(-1)?.new ?? null,
          snapshot: info.version, seen_on: info.asOf,
        }));
        changes += entries.length;
        commands.push(['RPUSH', this.keys.history(dot), ...entries]);
        commands.push(['LTRIM', this.keys.history(dot), -HISTORY_MAX, -1]);
        commands.push(['HSET', this.keys.current(identityBucket(dot)), String(dot), p.line]);
        commands.push(['XADD', this.keys.changes, 'MAXLEN', '~', CHANGE_STREAM_MAX, '*', 'dot', String(dot), 'mcs', p.mcs.join(','),
          'snapshot', info.version, 'seen_on', info.asOf, 'changes', `[${entries.join(',')}]`]);
      });
      await sendKeyed(this.redis, commands);
    }
    const carriers = this.pending.size;
    this.pending.clear();
    return { changes, carriers };
  }
}

/** A carrier's recorded changes, oldest first (unreadable entries skipped). */
export async function readHistory(redis: RedisClient, keys: IdentityKeys, dot: string): Promise<IdentityChange[]> {
  const raw = await redis.lrange(keys.history(dot), 0, -1);
  return raw.map(decodeChange).filter((c): c is IdentityChange => c !== null);
}

/** One entry of the change stream: a carrier's changes seen by one ingest. */
export interface RecordedChanges { id: string; dot: string; mcs: string[]; changes: IdentityChange[] }

function decodeEntry([id, fields]: [string, string[]]): RecordedChanges {
  const field = (name: string) => fields[fields.indexOf(name) + 1] ?? '';
  let changes: IdentityChange[] = [];
  try {
    const raw = JSON.parse(field('changes')) as unknown;
    if (Array.isArray(raw)) changes = raw.map((item) => decodeChange(JSON.stringify(item))).filter((c): c is IdentityChange => c !== null);
  } catch {
    changes = [];
  }
  return { id, dot: field('dot'), mcs: field('mcs').split(',').filter(Boolean), changes };
}

/** Entries after stream id `after` (exclusive), oldest first. */
export async function readRecordedChanges(redis: RedisClient, keys: IdentityKeys, after: string, count: number): Promise<RecordedChanges[]> {
  const entries = await redis.xrange(keys.changes, `(${after}`, '+', 'COUNT', count);
  return entries.map(decodeEntry);
}

/** The id of the newest entry ('0-0' when the stream is empty): where a reader that starts now begins. */
export async function lastRecordedChange(redis: RedisClient, keys: IdentityKeys): Promise<string> {
  const [newest] = await redis.xrevrange(keys.changes, '+', '-', 'COUNT', 1);
  return newest?.[0] ?? '0-0';
}
