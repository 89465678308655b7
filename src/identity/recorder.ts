// Records carrier identity changes as the census ingest reads it (IdentitySink of src/ingest). A chunk's current
// identities are read in one round trip; a carrier seen for the first time is stored at once (no change to record);
// a change is held until the snapshot flips, then appended to the carrier's history with the census's own date,
// so an aborted ingest records nothing and the next one sees the same change again.
import type { IdentityValues } from '../core/identity.js';
import type { IdentityObservation, IdentitySink } from '../ingest/identity-sink.js';
import type { RedisClient } from '../redis/connection.js';
import { sendKeyed, type KeyedCommand } from '../redis/keyed-batch.js';
import {
  decodeChange, decodeIdentity, diffIdentity, encodeChange, encodeIdentity, storedForm, type IdentityChange,
} from './codec.js';
import { identityBucket, type IdentityKeys } from './keys.js';

/** Changes kept per carrier (oldest dropped first): at today's change rates many years, well over the two required. */
export const HISTORY_MAX = 200;

interface Pending { dot: number; values: IdentityValues; changes: Array<Omit<IdentityChange, 'snapshot' | 'seen_on'>> }

export class IdentityRecorder implements IdentitySink {
  private readonly pending: Pending[] = [];

  constructor(private readonly redis: RedisClient, private readonly keys: IdentityKeys) {}

  async observe(rows: readonly IdentityObservation[]): Promise<void> {
    if (rows.length === 0) return;
    const replies = await sendKeyed(this.redis, rows.map((row): KeyedCommand => ['HGET', this.keys.current(identityBucket(row.dot)), String(row.dot)]));
    const fresh: KeyedCommand[] = [];
    rows.forEach((row, i) => {
      const reply = replies[i];
      const before = typeof reply === 'string' ? decodeIdentity(reply) : null;
      if (before === null) {
        fresh.push(['HSET', this.keys.current(identityBucket(row.dot)), String(row.dot), encodeIdentity(storedForm(row.identity))]);
        return;
      }
      const changes = diffIdentity(before, row.identity);
      if (changes.length > 0) this.pending.push({ dot: row.dot, values: row.identity, changes });
    });
    await sendKeyed(this.redis, fresh);
  }

  async commit(info: { version: string; asOf: string }): Promise<{ changes: number; carriers: number }> {
    let changes = 0;
    const batch = 256;
    for (let start = 0; start < this.pending.length; start += batch) {
      const group = this.pending.slice(start, start + batch);
      // Old values kept only as fingerprints come from the carrier's own earlier entries, when it has any.
      const histories = await sendKeyed(this.redis, group.map((p): KeyedCommand => ['LRANGE', this.keys.history(p.dot), 0, -1]));
      const commands: KeyedCommand[] = [];
      group.forEach((p, i) => {
        const earlier = (histories[i] as string[] | null ?? []).map(decodeChange).filter((c): c is IdentityChange => c !== null);
        const entries = p.changes.map((change) => encodeChange({
          ...change,
          old: change.old ?? earlier.filter((e) => e.field === change.field).at(-1)?.new ?? null,
          snapshot: info.version, seen_on: info.asOf,
        }));
        changes += entries.length;
        commands.push(['RPUSH', this.keys.history(p.dot), ...entries]);
        commands.push(['LTRIM', this.keys.history(p.dot), -HISTORY_MAX, -1]);
        commands.push(['HSET', this.keys.current(identityBucket(p.dot)), String(p.dot), encodeIdentity(storedForm(p.values))]);
      });
      await sendKeyed(this.redis, commands);
    }
    const carriers = this.pending.length;
    this.pending.length = 0;
    return { changes, carriers };
  }
}

/** A carrier's recorded changes, oldest first (unreadable entries skipped). */
export async function readHistory(redis: RedisClient, keys: IdentityKeys, dot: string): Promise<IdentityChange[]> {
  const raw = await redis.lrange(keys.history(dot), 0, -1);
  return raw.map(decodeChange).filter((c): c is IdentityChange => c !== null);
}
