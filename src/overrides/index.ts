// The overrides feature's public module (overrides, sanctions clearances, the review queue): the wiring the
// composition root builds it with, and the stores and views the CLI's `overrides` and `reviews` commands use.
export { overrideKeys } from './keys.js';
export { overrideView, type OverrideRecord } from './model.js';
export { ReviewStore, type ReviewItem } from './review-store.js';
export { OverrideStore, type LogEntry } from './store.js';
export { buildOverrides, type Overrides } from './wiring.js';
