// What the ingest tells the identity history (src/identity) about each census carrier, and what it gets back for
// the carrier records. The ingest is shared code and imports no feature: the caller (the CLI, tests) passes an
// implementation in IngestOptions.identity.
import type { IdentitySignals, SharedContactFact } from '../core/carrier.js';
import type { IdentityValues } from '../core/identity.js';
import type { RedisKeys } from '../store/keys.js';

export interface IdentityObservation {
  dot: number;
  identity: IdentityValues;
  /** Census STATUS_CODE A (true), I (false), blank (null). */
  active: boolean | null;
  /** The MC dockets of the DOT (census and authority file): monitoring names watched carriers by MC. */
  mcs: readonly number[];
}

export interface IdentitySink {
  /**
   * One chunk of census rows (the first row of each DOT), in file order: compares them with what was recorded and
   * returns, per DOT that has any, the identity signals for its carrier records (changes seen now dated `nowMs`).
   */
  observe(rows: readonly IdentityObservation[], nowMs: number): Promise<ReadonlyMap<number, IdentitySignals>>;
  /** After the census pass: writes the version's shared-contact index; per DOT, the contacts it shares with enough carriers. */
  shareIndex(version: string, keys: RedisKeys): Promise<ReadonlyMap<number, SharedContactFact[]>>;
  /** After the snapshot flip: records the changes seen, first seen in `version`, dated by the census `asOf`. */
  commit(info: { version: string; asOf: string }): Promise<{ changes: number; carriers: number }>;
}
