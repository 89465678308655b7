// The overrides feature's public module (overrides, sanctions clearances, the review queue): the wiring the
// composition root builds it with, and what the CLI's `overrides` and `reviews` commands use (the feature on a
// given connection, the listings and their cursors, the views).
export { buildOverrideAdmin, type OverrideAdmin } from './admin.js';
export { OverrideEffect } from './effect.js';
export { overrideKeys } from './keys.js';
export {
  isOverrideStatus, OVERRIDE_STATUSES, overrideView, pageOverrides, type OverrideRecord, type OverrideStatus,
} from './model.js';
export { OverrideRegistry } from './registry.js';
export { decodeReviewCursor } from './review-queue.js';
export { isReviewStatus, REVIEW_STATUSES, ReviewStore, type ReviewItem, type ReviewStatus } from './review-store.js';
export { OVERRIDE_ID } from './route.js';
export { OverrideStore, type LogEntry, type OverrideLogLine } from './store.js';
export { buildOverrides, type Overrides } from './wiring.js';
