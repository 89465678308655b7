// The shared-contact index of one census: how many carriers (DOT records) share each phone number (phone and cell
// phone together), email address and physical address, normalised. Built while the ingest reads the census, from a
// 40-bit hash of each value packed with the DOT into one 64-bit word (8 bytes per value, sorted natively), so 2M
// carriers cost ~50 MB for the pass and no per-value object. Stored per snapshot version in SHARED_CONTACT_BUCKETS
// untagged hashes (one key per command, Cluster-safe) and removed with the version:
//   field  p|e|a + base-36 hash (32 bits) + '.' + base-36 8 more bits
//   value  carriers|up to 10 DOTs[|x when the exception list names the value]
// Only values shared by two carriers or more are stored.
import type { IdentityValues } from '../core/identity.js';
import type { RedisClient } from '../redis/connection.js';
import { sendKeyed, type KeyedCommand } from '../redis/keyed-batch.js';
import { SHARED_CONTACT_BUCKETS, type RedisKeys } from '../store/keys.js';
import type { ContactExceptions } from './exceptions.js';

export type ContactKind = 'phone' | 'email' | 'address';
const KIND_CHAR: Record<ContactKind, string> = { phone: 'p', email: 'e', address: 'a' };

/** DOTs are packed in 24 bits; a DOT at or above this is left out of the index (today's DOTs are below 5M). */
const DOT_LIMIT = 1 << 24;
/** DOTs kept per index entry and per carrier's evidence. */
const DOTS_SHOWN = 10;
/** unrelated carriers from which shared_contact can fire under any rule set (shared_contact_max is at least 1). */
const FACT_MIN_UNRELATED = 2;

/** A 40-bit hash of a normalised value: FNV-1a (32 bits) and 8 bits of a second FNV-1a with another basis. */
export function contactHash(value: string): { hi: number; lo: number } {
  let a = 0x811c9dc5;
  let b = 0x2e4f8a1d;
  for (let i = 0; i < value.length; i += 1) {
    const code = value.charCodeAt(i);
    a = Math.imul(a ^ code, 0x01000193);
    b = Math.imul(b ^ code, 0x01000193);
  }
  return { hi: a >>> 0, lo: (b >>> 24) & 0xff };
}

const hashKey = (hi: number, lo: number) => hi * 256 + lo;

export function sharedContactField(kind: ContactKind, value: string): { bucket: number; field: string } {
  const { hi, lo } = contactHash(value);
  return { bucket: hi % SHARED_CONTACT_BUCKETS, field: `${KIND_CHAR[kind]}${hi.toString(36)}.${lo.toString(36)}` };
}

/** 64-bit words (hash in the high 40 bits, DOT in the low 24) in a growable typed array. */
class Column {
  private words = new BigUint64Array(1 << 12);
  private halves = new Uint32Array(this.words.buffer);
  length = 0;

  push(hi: number, lo: number, dot: number): void {
    if (this.length === this.words.length) {
      const grown = new BigUint64Array(this.words.length * 2);
      grown.set(this.words);
      this.words = grown;
      this.halves = new Uint32Array(grown.buffer);
    }
    // Little-endian: the low half of word i is halves[2i].
    this.halves[2 * this.length] = ((lo << 24) | dot) >>> 0;
    this.halves[2 * this.length + 1] = hi;
    this.length += 1;
  }

  /** Sorted in place (by hash, then DOT); the column is emptied. */
  drain(): Uint32Array {
    const view = this.words.subarray(0, this.length);
    view.sort();
    const halves = new Uint32Array(view.buffer, view.byteOffset, view.length * 2);
    this.words = new BigUint64Array(0);
    this.halves = new Uint32Array(0);
    this.length = 0;
    return halves;
  }
}

/** A carrier's share of a phone or email, before its value is looked up. */
export interface PendingShared { field: 'phone' | 'email'; key: number; unrelated: number; dots: string[] }

export interface SharedIndexStats { values: number; shared: number; exempt: number; carriersFlagged: number; skippedDots: number }

export class SharedContactIndex {
  private readonly columns: Record<ContactKind, Column> = { phone: new Column(), email: new Column(), address: new Column() };
  private readonly exempt: Record<ContactKind, ReadonlySet<number>>;
  private skippedDots = 0;

  constructor(private readonly exceptions: ContactExceptions) {
    const keys = (values: ReadonlySet<string>) => new Set([...values].map((value) => {
      const { hi, lo } = contactHash(value);
      return hashKey(hi, lo);
    }));
    this.exempt = { phone: keys(exceptions.phones), email: keys(exceptions.emails), address: keys(exceptions.addresses) };
  }

  add(dot: number, identity: IdentityValues): void {
    if (dot >= DOT_LIMIT || dot <= 0) { this.skippedDots += 1; return; }
    const put = (kind: ContactKind, value: string) => {
      if (value === '') return;
      const { hi, lo } = contactHash(value);
      this.columns[kind].push(hi, lo, dot);
    };
    put('phone', identity.phone);
    if (identity.cell_phone !== identity.phone) put('phone', identity.cell_phone);
    put('email', identity.email);
    put('address', identity.physical_address);
  }

  /** Writes the version's index; returns, per DOT, the phones and emails it shares with enough unrelated carriers. */
  async write(redis: RedisClient, keys: RedisKeys, version: string): Promise<{ facts: Map<number, PendingShared[]>; stats: SharedIndexStats }> {
    const facts = new Map<number, PendingShared[]>();
    const stats: SharedIndexStats = { values: 0, shared: 0, exempt: 0, carriersFlagged: 0, skippedDots: this.skippedDots };
    let batch: KeyedCommand[] = [];
    for (const kind of ['phone', 'email', 'address'] as const) {
      const halves = this.columns[kind].drain();
      const count = halves.length / 2;
      let i = 0;
      while (i < count) {
        const hi = halves[2 * i + 1] ?? 0;
        const lo = (halves[2 * i] ?? 0) >>> 24;
        let j = i + 1;
        while (j < count && halves[2 * j + 1] === hi && (halves[2 * j] ?? 0) >>> 24 === lo) j += 1;
        stats.values += 1;
        if (j - i > 1) {
          const dots: number[] = [];
          for (let k = i; k < j; k += 1) {
            const dot = (halves[2 * k] ?? 0) & 0xffffff;
            if (dots[dots.length - 1] !== dot) dots.push(dot);
          }
          if (dots.length > 1) {
            const exempt = this.exempt[kind].has(hashKey(hi, lo));
            stats.shared += 1;
            if (exempt) stats.exempt += 1;
            batch.push(['HSET', keys.sharedContacts(version, hi % SHARED_CONTACT_BUCKETS), `${KIND_CHAR[kind]}${hi.toString(36)}.${lo.toString(36)}`,
              `${dots.length}|${dots.slice(0, DOTS_SHOWN).join(',')}${exempt ? '|x' : ''}`]);
            if (batch.length >= 1000) { await sendKeyed(redis, batch); batch = []; }
            if (kind !== 'address' && !exempt && dots.length > FACT_MIN_UNRELATED) this.flag(kind, hashKey(hi, lo), dots, facts, stats);
          }
        }
        i = j;
      }
    }
    await sendKeyed(redis, batch);
    return { facts, stats };
  }

  /** Each carrier of the group that shares the value with enough carriers outside its own DOT group. */
  private flag(field: 'phone' | 'email', key: number, dots: number[], facts: Map<number, PendingShared[]>, stats: SharedIndexStats): void {
    const { groupOf } = this.exceptions;
    const perGroup = new Map<number, number>();
    for (const dot of dots) {
      const group = groupOf.get(dot);
      if (group !== undefined) perGroup.set(group, (perGroup.get(group) ?? 0) + 1);
    }
    for (const dot of dots) {
      const group = groupOf.get(dot);
      const related = group === undefined ? 1 : perGroup.get(group) ?? 1;
      const unrelated = dots.length - related;
      if (unrelated < FACT_MIN_UNRELATED) continue;
      const shown: string[] = [];
      for (const other of dots) {
        if (shown.length >= DOTS_SHOWN) break;
        if (other !== dot && (group === undefined || groupOf.get(other) !== group)) shown.push(String(other));
      }
      const list = facts.get(dot);
      if (list === undefined) { facts.set(dot, [{ field, key, unrelated, dots: shown }]); stats.carriersFlagged += 1; }
      else list.push({ field, key, unrelated, dots: shown });
    }
  }
}

/** Whether a carrier's phone or email is the one a pending share names (its hash key). */
export function matchesKey(value: string, key: number): boolean {
  if (value === '') return false;
  const { hi, lo } = contactHash(value);
  return hashKey(hi, lo) === key;
}

/** The index entry of one value in a version: carriers sharing it, some of their DOTs, and whether it is exempt. */
export async function readSharedContact(redis: RedisClient, keys: RedisKeys, version: string, kind: ContactKind, value: string):
  Promise<{ carriers: number; dots: string[]; exempt: boolean } | null> {
  const { bucket, field } = sharedContactField(kind, value);
  const raw = await redis.hget(keys.sharedContacts(version, bucket), field);
  if (!raw) return null;
  const [carriers = '0', dots = '', flag] = raw.split('|');
  return { carriers: Number(carriers), dots: dots.split(',').filter(Boolean), exempt: flag === 'x' };
}
