// Unauthenticated failures (missing, malformed, unknown or wrong keys) counted per client address in fixed
// one-minute windows, in process memory: past the limit an address is answered 429 before its key is looked up,
// so guessing keys costs neither Redis round trips nor a usable timing signal. Per replica by design: it must
// not itself spend a Redis command per failed request. A key verified before keeps working from a limited
// address (its check needs no lookup), so one client behind a shared address cannot lock the others out.
import { LRUCache } from 'lru-cache';

const WINDOW_MS = 60_000;
const ADDRESSES_MAX = 100_000;

interface Window {
  count: number;
  endsAt: number;
}

export class FailureLimit {
  private readonly windows = new LRUCache<string, Window>({ max: ADDRESSES_MAX });

  constructor(readonly perMinute: number, private readonly now: () => number = Date.now) {}

  /** Seconds until the address may try again (≥ 1), or 0 when it is under its limit. */
  retryAfterSeconds(address: string): number {
    const window = this.windows.get(address);
    if (window === undefined || window.endsAt <= this.now() || window.count < this.perMinute) return 0;
    return Math.max(1, Math.ceil((window.endsAt - this.now()) / 1000));
  }

  /** Counts one failure of the address. */
  note(address: string): void {
    const now = this.now();
    const window = this.windows.get(address);
    if (window === undefined || window.endsAt <= now) this.windows.set(address, { count: 1, endsAt: now + WINDOW_MS });
    else window.count += 1;
  }
}
