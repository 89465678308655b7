// GET /metrics: Prometheus exposition (counts and freshness only; nothing secret). Restrict it at the network
// layer in production (k8s/README.md) like any scrape endpoint.
import type { Metrics } from '../../metrics.js';
import type { Route } from '../uws.js';

export function metricsRoute(metrics: Metrics): Route {
  return {
    method: 'GET',
    pattern: '/metrics',
    maxBodyBytes: 0,
    handler: async () => ({
      status: 200,
      headers: { 'content-type': metrics.registry.contentType },
      text: await metrics.exposition(),
    }),
  };
}
