// The eligibility feature's public module (the single check, POST /v1/eligibility): the use case, which
// monitoring's API also evaluates through, and the route the composition root mounts.
export { eligibilityRoute, type EligibilityDeps } from './route.js';
export { EligibilityService, isUnrecorded, type EligibilityOptions, type VerdictWaiter } from './service.js';
