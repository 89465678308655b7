// Which sanctions-list entries disappeared between the serving snapshot and this ingest. Each ingest records, per
// watch list, the identity of every entry it read (OFAC ent_num, SAM Number; the name where the file gives no id)
// with its name, stored compressed under the version's keys (removed with the version). The next ingest names every
// entry removed (file, id, name) in its report, and refuses when more than a configured share of a list is gone
// (guard `removed:<list>`, accepted by name). A removal that lifts a carrier's block is also its own
// `unblocked:MC…` guard; that row names the removed entry (change-guards.ts).
import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';
import type { GuardRow } from './change-guards.js';

export const WATCH_LISTS = ['ofac_sdn', 'ofac_cons', 'sam'] as const;
export type WatchList = (typeof WATCH_LISTS)[number];

/** Tabs and line breaks would split the stored lines. */
const oneLine = (text: string) => text.replace(/[\t\r\n]/g, ' ');

/** The entries of one list as one ingest read them: identity → name, in file order. */
export class ListEntries {
  readonly entries = new Map<string, string>();
  /** SAM: records still in the file whose Termination Date has passed (identity → that date); not in `entries`. */
  readonly terminated = new Map<string, string>();

  add(id: string, name: string): void {
    const flat = oneLine(name);
    const key = oneLine(id) || `name:${flat}`;
    if (!this.entries.has(key)) this.entries.set(key, flat);
  }

  end(id: string, name: string, until: string): void {
    this.terminated.set(oneLine(id) || `name:${oneLine(name)}`, until);
  }
}

/** One line per entry (`id TAB name`), brotli-compressed: ~9,000 SDN entries are a few tens of KB. */
export function encodeListEntries(list: ListEntries): Buffer {
  const text = [...list.entries].map(([id, name]) => `${id}\t${name}`).join('\n');
  // Quality 5: within a few % of the maximum's size at a fraction of its time (the SAM list is 100k+ records).
  return brotliCompressSync(Buffer.from(text, 'utf8'), { params: { [constants.BROTLI_PARAM_QUALITY]: 5 } });
}

export function decodeListEntries(blob: Buffer): ListEntries {
  const list = new ListEntries();
  const text = brotliDecompressSync(blob).toString('utf8');
  if (text === '') return list;
  for (const line of text.split('\n')) {
    const tab = line.indexOf('\t');
    list.entries.set(line.slice(0, tab), line.slice(tab + 1));
  }
  return list;
}

export interface RemovedEntry {
  list: WatchList;
  /** The file of this ingest the entry is missing from. */
  file: string;
  /** OFAC ent_num or SAM Number ('' when the serving list keyed it by name). */
  id: string;
  name: string;
  /** SAM: still in the file, but its Termination Date has passed. */
  terminated?: string;
}

const idOf = (key: string) => (key.startsWith('name:') ? '' : key);
const pct = (share: number) => `${(share * 100).toFixed(1)}%`;

/** `ofac_sdn 990001 "NORTHWIND MARITIME LOGISTICS"` — how the report and the guards name a removed entry. */
export function describeRemoved(entry: RemovedEntry): string {
  return `${entry.list} ${entry.id || '(no id)'} "${entry.name}"${entry.terminated ? ` (terminated ${entry.terminated})` : ''}`;
}

/**
 * Pure: every entry of `before` missing from `now`, and the guard row `removed:<list>` (refused when the removed
 * share passes `maxShare`). Without a serving list (first ingest, or a snapshot that recorded none) nothing is named.
 */
export function diffList(
  list: WatchList, before: ListEntries | null, now: ListEntries, maxShare: number, file: string,
): { removed: RemovedEntry[]; row: GuardRow } {
  if (before === null) {
    return { removed: [], row: { guard: `removed:${list}`, before: '-', after: `${now.entries.size} entries`, limit: 'no serving entries', verdict: 'ok', file } };
  }
  const removed: RemovedEntry[] = [];
  for (const [key, name] of before.entries) {
    if (now.entries.has(key)) continue;
    const until = now.terminated.get(key);
    removed.push({ list, file, id: idOf(key), name, ...(until ? { terminated: until } : {}) });
  }
  const share = removed.length / Math.max(1, before.entries.size);
  const first = removed[0];
  return {
    removed,
    row: {
      guard: `removed:${list}`, before: `${before.entries.size} entries`,
      after: `${removed.length} removed (${pct(share)})${first ? `, first ${describeRemoved(first)}` : ''}`,
      limit: `≤ ${pct(maxShare)} removed`, verdict: share > maxShare ? 'refused' : 'ok', file,
    },
  };
}

/** The removed entry a serving watchlist hit came from (by list and id, else by list and name), if any. */
export function removedFor(removed: readonly RemovedEntry[], hit: { list: string; entry_id: string; matched_name: string }): RemovedEntry | undefined {
  return removed.find((entry) => entry.list === hit.list && entry.id !== '' && entry.id === hit.entry_id)
    ?? removed.find((entry) => entry.list === hit.list && entry.name === hit.matched_name);
}
