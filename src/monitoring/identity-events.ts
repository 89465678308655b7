// identity.changed events: a watched carrier's census identity (names, phone, cell phone, email, addresses, officers)
// changed, with before and after values, whether or not its verdict changed. The identity history (src/identity)
// appends each carrier's changes to a stream when an ingest records them; the detector's tick reads the entries after
// its cursor and fans each out to the accounts watching one of the carrier's MC numbers. The cursor moves after the
// events are stored (a crash in between repeats, never loses, an event). The first read starts at the stream's end.
import { v7 as uuidv7 } from 'uuid';
import { IDENTITY_KIND } from '../core/identity.js';
import { identityKeys, lastRecordedChange, readRecordedChanges, type IdentityKeys, type RecordedChanges } from '../identity/index.js';
import type { RedisClient } from '../redis/connection.js';
import type { EventStore } from './event-store.js';
import type { IdentityChangeDetail, MonitoringEvent } from './events-model.js';
import type { MonitoringKeys } from './keys.js';
import type { WatchListStore } from './watchlist.js';

const PAGE = 1000;

export class IdentityEvents {
  private readonly ikeys: IdentityKeys;

  constructor(private readonly redis: RedisClient, prefix: string, private readonly mkeys: MonitoringKeys,
    private readonly watch: WatchListStore, private readonly events: EventStore) {
    this.ikeys = identityKeys(prefix);
  }

  /** Emits the events of every change recorded since the last call; returns how many were stored. */
  async emit(nowMs: number): Promise<number> {
    let cursor = await this.redis.get(this.mkeys.identityCursor);
    if (cursor === null) {
      await this.redis.set(this.mkeys.identityCursor, await lastRecordedChange(this.redis, this.ikeys));
      return 0;
    }
    let stored = 0;
    for (;;) {
      const entries = await readRecordedChanges(this.redis, this.ikeys, cursor, PAGE);
      const last = entries.at(-1);
      if (last === undefined) return stored;
      const batch = await this.fanOut(entries, nowMs);
      await this.events.append(batch, nowMs);
      stored += batch.length;
      cursor = last.id;
      await this.redis.set(this.mkeys.identityCursor, cursor);
    }
  }

  private async fanOut(entries: RecordedChanges[], nowMs: number): Promise<Array<{ account: string; event: MonitoringEvent }>> {
    const watchers = await this.watch.watchersOf([...new Set(entries.flatMap((entry) => entry.mcs))]);
    const observed = new Date(nowMs).toISOString();
    const batch: Array<{ account: string; event: MonitoringEvent }> = [];
    for (const entry of entries) {
      const changes: IdentityChangeDetail[] = entry.changes.map((change) => ({
        field: change.field, kind: IDENTITY_KIND[change.field], before: change.old, after: change.new,
        snapshot: change.snapshot, seen_on: change.seen_on, first_seen_on: change.first_seen_on ?? null,
      }));
      const seenOn = entry.changes[0]?.seen_on;
      const occurred = seenOn && Number.isFinite(Date.parse(seenOn)) ? new Date(`${seenOn.slice(0, 10)}T00:00:00Z`).toISOString() : observed;
      for (const mc of entry.mcs) {
        for (const account of watchers.get(mc) ?? []) {
          batch.push({ account, event: {
            id: uuidv7(), type: 'identity.changed', occurred_at: occurred, observed_at: observed, mc, dot: entry.dot, trigger: 'snapshot',
            before: null, after: null, reasons_added: [], reasons_removed: [], decision_id: null, ruleset_version: null, data_as_of: null,
            changes,
          } });
        }
      }
    }
    return batch;
  }
}
