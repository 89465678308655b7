// Where the peers keep their own keys, under the bench's prefix: named once, for the peers and for the bench that
// removes their records between runs (bench/record-cleanup.ts).

/** Every peer-owned key (rate counters, records) starts with this. */
export function peerPrefix(prefix: string): string {
  return `${prefix}peer:`;
}

/** Every peer decision record (one SET per answer) starts with this; the decision id follows. */
export function peerRecordsHead(prefix: string): string {
  return `${peerPrefix(prefix)}decision:`;
}
