// What the ingest tells the identity history (src/identity) about each census carrier. The ingest is shared code and
// imports no feature: the caller (the CLI, tests) passes an implementation in IngestOptions.identity.
import type { IdentityValues } from '../core/identity.js';

export interface IdentityObservation { dot: number; identity: IdentityValues }

export interface IdentitySink {
  /** One chunk of census rows (the first row of each DOT), in file order; compares them with what was recorded. */
  observe(rows: readonly IdentityObservation[]): Promise<void>;
  /** After the snapshot flip: records the changes seen, first seen in `version`, dated by the census `asOf`. */
  commit(info: { version: string; asOf: string }): Promise<{ changes: number; carriers: number }>;
}
