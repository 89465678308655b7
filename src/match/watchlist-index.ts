// Watchlist name index with blocking: ~20k–150k list names against ~2M carrier names must not be all-pairs.
// Exact matches are a Map lookup on the normalised name. Fuzzy candidates come only from blocks that share a
// key with the carrier name (first token, last token, first four characters); Jaro-Winkler runs on those.
// Two names scoring ≥ 0.85 almost always share their first token or their opening characters (the Winkler
// prefix boost rewards exactly that), so the blocks lose very little recall.
import type { WatchlistHit } from '../core/carrier.js';
import { jaroWinkler } from './jaro-winkler.js';
import { nameVariants, normaliseName } from './normalise.js';

export type ListName = WatchlistHit['list'];

export interface ListEntry {
  list: ListName;
  entry_id: string;
  /** The name as the list writes it. */
  name: string;
  individual: boolean;
  note?: string;
}

interface IndexedName {
  normalised: string;
  entry: ListEntry;
}

/** Similarity below this is never stored; the rule set's review threshold decides at verdict time. */
export const DEFAULT_MATCH_FLOOR = 0.85;
/** Hits kept per carrier: enough evidence for review without bloating the stored record. */
const MAX_HITS = 3;
/** Names shorter than this are too generic to fuzzy-match ("AB", "ACE"); they still match exactly. */
const MIN_FUZZY_LENGTH = 5;

/**
 * Blocking keys: first two tokens, first + last token, and first-token prefix + last token. Names scoring at
 * the review threshold share their opening token (the Winkler prefix boost rewards exactly that) and nearly
 * always one more token, so these keys keep recall while each block stays small even when many names start
 * with the same common word ("ALPINE", "GLOBAL", "AL").
 */
function blockKeys(normalised: string): string[] {
  const tokens = normalised.split(' ');
  const first = tokens[0] ?? '';
  if (tokens.length === 1) return [`1:${first}`];
  const last = tokens[tokens.length - 1] ?? '';
  return [...new Set([`2:${first} ${tokens[1]}`, `l:${first} ${last}`, `p:${first.slice(0, 3)} ${last}`])];
}

/** A block this large holds a generic key; comparing against all of it costs much and finds little. */
const MAX_BLOCK = 500;

export class WatchlistIndex {
  private readonly exact = new Map<string, ListEntry[]>();
  private readonly blocks = new Map<string, IndexedName[]>();
  private names = 0;

  constructor(readonly floor = DEFAULT_MATCH_FLOOR) {}

  get size(): number {
    return this.names;
  }

  add(entry: ListEntry): void {
    for (const normalised of nameVariants(entry.name, entry.individual)) {
      const bucket = this.exact.get(normalised);
      if (bucket) {
        if (bucket.some((existing) => existing.list === entry.list && existing.entry_id === entry.entry_id)) continue;
        bucket.push(entry);
      } else this.exact.set(normalised, [entry]);
      this.names += 1;
      if (normalised.length < MIN_FUZZY_LENGTH) continue;
      for (const key of blockKeys(normalised)) {
        const block = this.blocks.get(key);
        if (block) block.push({ normalised, entry });
        else this.blocks.set(key, [{ normalised, entry }]);
      }
    }
  }

  /** Hits for a carrier's names (legal, DBA): exact ones first, then the best fuzzy ones, at most MAX_HITS. */
  match(carrierNames: Array<string | null>): WatchlistHit[] {
    const best = new Map<string, WatchlistHit>();
    const keep = (hit: WatchlistHit) => {
      const id = `${hit.list}:${hit.entry_id}`;
      const previous = best.get(id);
      if (!previous || previous.score < hit.score) best.set(id, hit);
    };
    for (const carrierName of carrierNames) {
      if (!carrierName) continue;
      const normalised = normaliseName(carrierName);
      if (normalised === '') continue;
      for (const entry of this.exact.get(normalised) ?? []) keep(toHit(entry, carrierName, 1, true));
      if (normalised.length < MIN_FUZZY_LENGTH) continue;
      const seen = new Set<IndexedName>();
      for (const key of blockKeys(normalised)) {
        const block = this.blocks.get(key) ?? [];
        if (block.length > MAX_BLOCK) continue;
        for (const candidate of block) {
          if (seen.has(candidate) || candidate.normalised === normalised) continue;
          seen.add(candidate);
          const longer = Math.max(candidate.normalised.length, normalised.length);
          // Jaro-Winkler cannot reach the floor when one name is less than half the other's length.
          if (Math.min(candidate.normalised.length, normalised.length) * 2 < longer) continue;
          const score = jaroWinkler(normalised, candidate.normalised);
          if (score >= this.floor) keep(toHit(candidate.entry, carrierName, Math.floor(score * 1000) / 1000, false));
        }
      }
    }
    return [...best.values()]
      .sort((a, b) => Number(b.exact) - Number(a.exact) || b.score - a.score)
      .slice(0, MAX_HITS);
  }
}

function toHit(entry: ListEntry, carrierName: string, score: number, exact: boolean): WatchlistHit {
  const hit: WatchlistHit = {
    list: entry.list, entry_id: entry.entry_id, matched_name: entry.name, carrier_name: carrierName, score, exact,
  };
  if (entry.note) hit.note = entry.note;
  return hit;
}
