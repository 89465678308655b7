// The deployment mark: one control-slot key that says "this Redis holds an initialised deployment". Every
// operator write that sets the deployment up (a key save, a rule set publish, a DNU change, a snapshot flip)
// writes it with NX in the same single-slot transaction, so it exists whenever any of that data does. A Redis
// that answers without it has lost its data (a primary restarted empty, a FLUSHALL): replicas then answer
// degraded verdicts instead of 401s (src/state/live-state.ts, src/auth/key-store.ts).
import type { ChainableCommander } from 'ioredis';
import type { RedisKeys } from './keys.js';

export function deploymentMarkValue(by: string, nowMs = Date.now()): string {
  return JSON.stringify({ initialised_at: new Date(nowMs).toISOString(), by });
}

/** Adds the mark (kept if already set) to a transaction on the control slot. */
export function withDeploymentMark<T extends ChainableCommander>(transaction: T, keys: RedisKeys, by: string): T {
  transaction.set(keys.deploymentMark, deploymentMarkValue(by), 'NX');
  return transaction;
}
