// The live do-not-use list as a replica holds it: MC number → expiry (ms, or Infinity). Built from the Redis
// hash (MC → JSON {reason, added_at, expires_at}); a value that is not valid JSON still blocks (fail closed).

export interface DoNotUseIndex {
  has(mc: string, nowMs: number): boolean;
  readonly size: number;
}

export function doNotUseIndex(hash: Record<string, string>): DoNotUseIndex {
  return DoNotUseList.from(hash);
}

function expiryOf(raw: string): number {
  try {
    const parsed = JSON.parse(raw) as { expires_at?: unknown };
    if (typeof parsed.expires_at === 'string' && parsed.expires_at !== '') {
      const ms = Date.parse(parsed.expires_at);
      if (Number.isFinite(ms)) return ms;
    }
  } catch {
    // keep blocking forever: a hand-edited entry is still an entry
  }
  return Number.POSITIVE_INFINITY;
}

/** The replica's copy, changed in place by the change log entries it applies (src/state/live-state.ts). */
export class DoNotUseList implements DoNotUseIndex {
  private readonly expiries = new Map<string, number>();

  static from(hash: Record<string, string>): DoNotUseList {
    const list = new DoNotUseList();
    for (const [mc, raw] of Object.entries(hash)) list.set(mc, raw);
    return list;
  }

  set(mc: string, raw: string): void {
    this.expiries.set(mc, expiryOf(raw));
  }

  delete(mc: string): void {
    this.expiries.delete(mc);
  }

  has(mc: string, nowMs: number): boolean {
    return (this.expiries.get(mc) ?? Number.NEGATIVE_INFINITY) > nowMs;
  }

  get size(): number {
    return this.expiries.size;
  }
}
