// The decisions feature's public module: what other features, the composition root and the CLI may use.
// Decision records (written with every verdict, read back by id), the decision id and the verdict stamp,
// the GET /v1/decisions/{id} and GET /v1/decisions routes, the signed export, and the continuous archive
// (archiver, stores, look-ups from it, chain verification).
export { exportDecisions, exportLines, parsePublicKey, parseSigningKey, verifyExport } from './archive.js';
export { LocalArchiveStore, type ArchiveStore } from './archive-store.js';
export { isBundle, verifyBundle, writeBundle, type BundleWriter } from './bundle.js';
export { verifyArchive } from './archive-verify.js';
export { archiveReader, archiveStore, buildArchiver, leaseMs, startDecisionArchiver } from './archive-wiring.js';
export { EVICT_MARGIN_SECONDS, secondOf } from './archiver.js';
export { parseLegalHold, placedHolds, placeHold, releaseHold, type HoldKind } from './legal-hold.js';
export { DecisionLookup, FIND_MAX_LIMIT } from './lookup.js';
export { decisionId, toVerdict } from './decision-id.js';
export { DecisionReader } from './reader.js';
export type { RecordContext } from './record-codec.js';
export { DecisionRecorder, type RecordWaiter } from './recorder.js';
export { decisionSearchRoute, decisionsRoute } from './route.js';
