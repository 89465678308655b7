// The live do-not-use list as a replica holds it: MC number → expiry (ms, or Infinity). Built from the Redis
// hash (MC → JSON {reason, added_at, expires_at}); a value that is not valid JSON still blocks (fail closed).

export interface DoNotUseIndex {
  has(mc: string, nowMs: number): boolean;
  readonly size: number;
}

export function doNotUseIndex(hash: Record<string, string>): DoNotUseIndex {
  const expiries = new Map<string, number>();
  for (const [mc, raw] of Object.entries(hash)) {
    let expiresAt = Number.POSITIVE_INFINITY;
    try {
      const parsed = JSON.parse(raw) as { expires_at?: unknown };
      if (typeof parsed.expires_at === 'string' && parsed.expires_at !== '') {
        const ms = Date.parse(parsed.expires_at);
        if (Number.isFinite(ms)) expiresAt = ms;
      }
    } catch {
      // keep blocking forever: a hand-edited entry is still an entry
    }
    expiries.set(mc, expiresAt);
  }
  return {
    has: (mc, nowMs) => (expiries.get(mc) ?? Number.NEGATIVE_INFINITY) > nowMs,
    size: expiries.size,
  };
}
