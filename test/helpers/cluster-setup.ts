// Global setup of the `cluster` vitest project: one private 3-master Redis Cluster for the whole run. Its nodes
// are handed to that project's test workers only (provide → test/helpers/cluster-env.ts), never through this
// process's environment, which every project's workers would inherit.
import type { TestProject } from 'vitest/node';
import { LocalCluster } from './redis-topology.js';

declare module 'vitest' {
  export interface ProvidedContext {
    redisClusterNodes: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const cluster = await LocalCluster.start(3);
  project.provide('redisClusterNodes', cluster.nodes);
  return () => cluster.stop();
}
