// The monitoring feature's public module (watch lists, change events, webhooks): its routes and workers for
// the composition root, and the stores the CLI's `watch`, `events` and `webhooks` commands use.
export type { AccountSources, OverrideSource, PolicySource } from './account-view.js';
export { decodeCursor, encodeCursor, EventStore } from './event-store.js';
export { monitoringKeys } from './keys.js';
export type { MonitoringEvent } from './events-model.js';
export { MAX_WATCH_ROWS } from './routes.js';
export { WatchListStore, type WatchItem } from './watchlist.js';
export { endpointView, REPLAY_QUEUE_MAX, WebhookStore } from './webhook-store.js';
export { monitoringApiRoutes, startMonitoringWorker } from './wiring.js';
