// The account-policy feature's public module: the wiring for the composition root, and what the CLI's `policy`
// commands use (the document's validation, the store, the dry run).
export { compilePolicy, type CompiledPolicy } from './apply.js';
export { validatePolicy, policyHash, type PolicyDocument, type PublishedPolicy } from './document.js';
export { dryRun } from './dry-run.js';
export { policyView } from './route.js';
export { policyKeys, PolicyStore } from './store.js';
export { policyWiring, type PolicyParts } from './wiring.js';
