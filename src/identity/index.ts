// The identity feature's public module: the carrier identity history (changes of names, contact, addresses and
// officers seen between census ingests), its recorder (the ingest's IdentitySink) and GET /v1/carriers/{mc}/history.
export type { IdentityChange } from './codec.js';
export { identityKeys, type IdentityKeys } from './keys.js';
export {
  IdentityRecorder, lastRecordedChange, readHistory, readRecordedChanges, HISTORY_MAX, type RecordedChanges, type RecorderOptions,
} from './recorder.js';
export { loadExceptions, parseExceptions, NO_EXCEPTIONS, type ContactExceptions } from './exceptions.js';
export { readSharedContact, type SharedIndexStats } from './shared-index.js';
export { carrierHistory, historyRoute, type HistoryView } from './route.js';
