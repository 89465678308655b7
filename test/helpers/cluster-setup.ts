// Global setup of the `cluster` vitest project: one private 3-master Redis Cluster for the whole run. The test
// files of that project read REDIS_MODE/REDIS_CLUSTER_NODES from the environment (test/helpers/harness.ts), so
// the same files run unchanged against standalone Redis in the `integration` project.
import { LocalCluster } from './redis-topology.js';

export default async function setup(): Promise<() => Promise<void>> {
  const cluster = await LocalCluster.start(3);
  process.env.REDIS_MODE = 'cluster';
  process.env.REDIS_CLUSTER_NODES = cluster.nodes;
  return () => cluster.stop();
}
