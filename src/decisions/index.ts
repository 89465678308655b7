// The decisions feature's public module: what other features, the composition root and the CLI may use.
// Decision records (written with every verdict, read back by id), the decision id and the verdict stamp,
// the GET /v1/decisions/{id} route, and the signed export.
export { exportDecisions, parsePublicKey, parseSigningKey, verifyExport } from './archive.js';
export { decisionId, toVerdict } from './decision-id.js';
export { DecisionReader } from './reader.js';
export type { RecordContext } from './record-codec.js';
export { DecisionRecorder, type RecordWaiter } from './recorder.js';
export { decisionsRoute } from './route.js';
