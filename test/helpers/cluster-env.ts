// Setup file of the `cluster` vitest project, run in each of its test workers: points the harness (and every CLI
// or worker process a test spawns with process.env) at the private Cluster of test/helpers/cluster-setup.ts.
import { inject } from 'vitest';
import './cluster-setup.js';

process.env.REDIS_MODE = 'cluster';
process.env.REDIS_CLUSTER_NODES = inject('redisClusterNodes');
