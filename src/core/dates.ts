// Date arithmetic for decide(): pure, on ISO YYYY-MM-DD strings and epoch milliseconds, UTC throughout.

const DAY_MS = 86_400_000;

/** Epoch ms of an ISO date (YYYY-MM-DD or full RFC 3339); NaN when unparseable. */
export function toEpochMs(isoDate: string): number {
  return Date.parse(isoDate.length === 10 ? `${isoDate}T00:00:00Z` : isoDate);
}

export function daysBetween(fromMs: number, toMs: number): number {
  return Math.floor((toMs - fromMs) / DAY_MS);
}

/** Epoch ms of `months` calendar months before `nowMs` (UTC), for "older than N months" checks. */
export function monthsBefore(nowMs: number, months: number): number {
  const now = new Date(nowMs);
  return Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - months, now.getUTCDate());
}

export function startOfDayMs(nowMs: number): number {
  return Math.floor(nowMs / DAY_MS) * DAY_MS;
}

export { DAY_MS };
