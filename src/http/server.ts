// The HTTP adapter's entry: picks the engine HTTP_ENGINE names and starts it. Each engine is imported only when
// chosen, so a service on the node engine never loads the uWS binary; a uws engine whose binary does not load
// refuses to start (one line naming HTTP_ENGINE=node) and never falls back to the other silently.
import type { HttpEngine, HttpServer, Route, ServerOptions } from './types.js';

export type StartServer = (routes: Route[], options: ServerOptions) => Promise<HttpServer>;

/** Loads the engine's module (for uws: its native binary); throws the refusal line when it cannot. */
export async function loadHttpEngine(engine: HttpEngine): Promise<StartServer> {
  if (engine === 'node') return (await import('./node-engine.js')).startNodeServer;
  return (await import('./uws.js')).startUwsServer;
}

export async function startHttpServer(routes: Route[], options: ServerOptions & { engine?: HttpEngine }): Promise<HttpServer> {
  const start = await loadHttpEngine(options.engine ?? 'uws');
  return start(routes, options);
}
