// The batch feature's public module (roster screening jobs): its routes and worker for the composition root,
// and the job store and view the CLI's `jobs` commands use.
export { BatchJobs } from './jobs.js';
export { isActiveStatus } from './types.js';
export { jobView } from './view.js';
export { batchApiRoutes, startBatchWorker, type BatchParts, type RunningBatchWorker } from './wiring.js';
export { PinnedScreening, type PolicyPins } from './pinned-screening.js';
