// Override records, their log and the replicas' projection in Redis. Every state change is one script call in
// the account's slot (compare-and-set on the record + append to the account's log + the override's history);
// the {ctl} projection of active overrides is written after an activation and BEFORE a deactivation, so a failure
// between the two steps can only leave an override not applied (fail closed), never applied after it ended.
import { z } from 'zod';
import type { RedisClient } from '../redis/connection.js';
import { luaScripts } from '../redis/scripts.js';
import { REASON_CODES } from '../core/reasons.js';
import { OVERRIDE_REASON_CODES, OVERRIDE_STATUSES, toActive, type ActiveOverride, type HistoryEntry, type OverrideRecord } from './model.js';
import type { OverrideKeys } from './keys.js';

const reason = z.enum(REASON_CODES);
const summarySchema = z.object({ eligible: z.boolean(), tier: z.enum(['preferred', 'standard', 'conditional', 'blocked']).nullable(), reasons: z.array(reason) }).nullable();
const bindingSchema = z.object({
  reason, source: z.string(), record_id: z.string().nullable(), matched_name: z.string().nullable(), fingerprint: z.string(),
});
const scopeSchema = z.union([
  z.object({ reference: z.string() }), z.object({ until: z.string() }), z.object({ until_change: z.literal(true) }),
]);
export const overrideRecordSchema = z.object({
  id: z.string(), account: z.string(), kind: z.enum(['clearance', 'override']), status: z.enum(OVERRIDE_STATUSES),
  mc_number: z.string(), dot_number: z.string().nullable(), legal_name: z.string().nullable(), reasons: z.array(reason),
  scope: scopeSchema, reason_code: z.enum(OVERRIDE_REASON_CODES), note: z.string().nullable(), requested_by: z.string(),
  requested_at: z.string(), approved_by: z.string().nullable(), approved_at: z.string().nullable(), expires_at: z.string(),
  names_fingerprint: z.string().nullable(), bindings: z.array(bindingSchema), decision_id: z.string().nullable(),
  closed_at: z.string().nullable(), closed_by: z.string().nullable(), closed_note: z.string().nullable(), updated_at: z.string(),
});
export const historyEntrySchema = z.object({
  at: z.string(), action: z.string(), actor: z.string().nullable(), note: z.string().nullable(), status: z.enum(OVERRIDE_STATUSES),
  verdict_before: summarySchema, verdict_after: summarySchema,
});

/** A record with the exact JSON it was read as (the compare-and-set value of its next change). */
export interface ReadRecord {
  record: OverrideRecord;
  raw: string;
}

function decodeRecord(raw: string): OverrideRecord | null {
  try {
    const parsed = overrideRecordSchema.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

export interface LogEntry {
  stream_id: string;
  override_id: string;
  action: string;
  entry: HistoryEntry;
}

/** One state change as `decisions export` writes it: the log entry, its account and the override it changed. */
export type OverrideLogLine = HistoryEntry & {
  account: string;
  override_id: string;
  /** The log's stream id and its time: the order the changes were logged in. */
  log_id: string;
  logged_at: string;
  override: Pick<OverrideRecord, 'mc_number' | 'dot_number' | 'legal_name' | 'kind' | 'reasons' | 'scope' | 'reason_code' | 'requested_by'
    | 'requested_at' | 'expires_at' | 'names_fingerprint' | 'bindings' | 'decision_id'> | null;
};

export class OverrideStore {
  constructor(private readonly redis: RedisClient, private readonly keys: OverrideKeys) {}

  async get(account: string, id: string): Promise<ReadRecord | null> {
    const raw = await this.redis.hget(this.keys.records(account), id);
    const record = raw === null ? null : decodeRecord(raw);
    // Another account's id is never in this account's hash: the same null as an unknown one.
    return raw === null || record === null || record.account !== account ? null : { record, raw };
  }

  async list(account: string): Promise<OverrideRecord[]> {
    const all = await this.redis.hgetall(this.keys.records(account));
    return Object.values(all).map(decodeRecord).filter((record): record is OverrideRecord => record !== null && record.account === account)
      .sort((a, b) => b.requested_at.localeCompare(a.requested_at) || b.id.localeCompare(a.id));
  }

  async history(account: string, id: string): Promise<HistoryEntry[]> {
    const raw = await this.redis.lrange(this.keys.history(account, id), 0, -1);
    return raw.map((entry) => historyEntrySchema.parse(JSON.parse(entry)));
  }

  /**
   * Writes `after` if the stored record is still `beforeRaw` ('' for a new record) and logs the change; false when
   * it moved meanwhile (the caller reads again and decides anew).
   */
  async transition(beforeRaw: string, after: OverrideRecord, action: string, entry: HistoryEntry): Promise<boolean> {
    const { account, id } = after;
    const applied = await luaScripts.overrideTransition(
      this.redis, { records: this.keys.records(account), log: this.keys.log(account), history: this.keys.history(account, id) },
      { id, before: beforeRaw, after: JSON.stringify(after), action, entry: JSON.stringify(entry) },
    );
    if (applied && beforeRaw === '') await this.redis.sadd(this.keys.accounts, account);
    return applied;
  }

  /** The replicas' projection: an active override is added, anything else removed; the epoch moves either way. */
  async project(record: OverrideRecord): Promise<void> {
    const multi = this.redis.multi();
    if (record.status === 'active') multi.hset(this.keys.active, record.id, JSON.stringify(record));
    else multi.hdel(this.keys.active, record.id);
    const results = await multi.incr(this.keys.epoch).exec();
    const failed = results?.find(([error]) => error !== null);
    if (!results || failed) throw failed?.[0] ?? new Error('override projection aborted');
  }

  async epoch(): Promise<string | null> {
    return this.redis.get(this.keys.epoch);
  }

  /** Every active override of every account, as the replicas hold them (HSCAN pages: short replies only). */
  async loadActive(): Promise<ActiveOverride[]> {
    const out: ActiveOverride[] = [];
    let cursor = '0';
    do {
      const [next, flat] = await this.redis.hscan(this.keys.active, cursor, 'COUNT', 500);
      for (let index = 1; index < flat.length; index += 2) {
        const record = decodeRecord(flat[index] as string);
        if (record !== null && record.status === 'active') out.push(toActive(record));
      }
      cursor = next;
    } while (cursor !== '0');
    return out;
  }

  /** The account's override log (every state change), oldest first, between two times (ms, inclusive). */
  async log(account: string, fromMs: number, toMs: number): Promise<LogEntry[]> {
    const out: LogEntry[] = [];
    let start = String(Math.max(0, fromMs));
    for (;;) {
      const page = await this.redis.xrange(this.keys.log(account), start, String(toMs), 'COUNT', 1000);
      for (const [streamId, fields] of page) {
        const map = new Map<string, string>();
        for (let index = 0; index + 1 < fields.length; index += 2) map.set(fields[index] as string, fields[index + 1] as string);
        out.push({
          stream_id: streamId, override_id: map.get('id') ?? '', action: map.get('action') ?? '',
          entry: historyEntrySchema.parse(JSON.parse(map.get('e') ?? '{}')),
        });
      }
      if (page.length < 1000) return out;
      start = `(${page[page.length - 1]?.[0] ?? ''}`;
    }
  }

  /**
   * Every account's log entries logged in [fromMs, toMs) (the stream's own time), oldest first, each with the
   * override's unchanging fields (carrier, kind, reasons, scope, reason code, requester, expiry, bindings), so a
   * line reads on its own in an archive: what `decisions export` writes next to the decisions.
   */
  async logLines(fromMs: number, toMs: number): Promise<OverrideLogLine[]> {
    const lines: Array<OverrideLogLine & { order: [number, number] }> = [];
    for (const account of await this.accounts()) {
      const entries = toMs > fromMs ? await this.log(account, fromMs, toMs - 1) : [];
      if (entries.length === 0) continue;
      const ids = [...new Set(entries.map((entry) => entry.override_id))];
      const raws = await this.redis.hmget(this.keys.records(account), ...ids);
      const records = new Map(ids.map((id, index) => [id, decodeRecord(raws[index] ?? '{}')]));
      for (const { stream_id, override_id, entry } of entries) {
        const [ms = 0, seq = 0] = stream_id.split('-').map(Number);
        const record = records.get(override_id) ?? null;
        lines.push({
          order: [ms, seq], account, override_id, log_id: stream_id, logged_at: new Date(ms).toISOString(), ...entry,
          override: record === null ? null : {
            mc_number: record.mc_number, dot_number: record.dot_number, legal_name: record.legal_name, kind: record.kind,
            reasons: record.reasons, scope: record.scope, reason_code: record.reason_code, requested_by: record.requested_by,
            requested_at: record.requested_at, expires_at: record.expires_at, names_fingerprint: record.names_fingerprint,
            bindings: record.bindings, decision_id: record.decision_id,
          },
        });
      }
    }
    lines.sort((a, b) => a.order[0] - b.order[0] || a.order[1] - b.order[1] || a.account.localeCompare(b.account));
    return lines.map(({ order: _order, ...line }) => line);
  }

  async accounts(): Promise<string[]> {
    return (await this.redis.smembers(this.keys.accounts)).sort();
  }
}
