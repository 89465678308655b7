// The one loop that tells the waiters of a coalesced Redis turn (carrier reads, record writes) their outcome.
//
// A turn's callers wait as entries of its list rather than as promises, so the turn's
// reply is handed out here, in order. A waiter must answer its own failures and never throw; if one does anyway (a
// bug), the rest of the turn is still told: one broken request must not leave others hanging.
export function tellEach<W>(waiters: readonly W[], tell: (waiter: W, index: number) => void): void {
  for (let index = 0; index < waiters.length; index += 1) {
    try {
      tell(waiters[index] as W, index);
    } catch {
      // Nothing left to tell this waiter; the others still get their outcome.
    }
  }
}
