// The raw baseline: uWebSockets.js answering every request with one fixed JSON body of the same size class as
// a verdict, with the same corked write the service uses. The ratio service/raw is the number that matters.
import uWS from 'uWebSockets.js';
import { serveBenchStats } from './child-stats.js';

const BODY = JSON.stringify({
  eligible: true, found: true, tier: 'preferred', reasons: [], degraded: false,
  decision_id: '01936b8e-0000-7000-8000-000000000000', ruleset_version: 1, data_as_of: '2025-01-01T00:00:00.000Z',
  evaluated_at: '2025-01-01T00:00:00.000Z', cache_hit: true, mc_number: '123456',
  carrier: { dot_number: '1123456', legal_name: 'CARRIER 123456 LLC', dba_name: null },
});

const app = uWS.App().any('/*', (res) => {
  res.cork(() => {
    res.writeStatus('200 OK').writeHeader('content-type', 'application/json').end(BODY);
  });
});

app.listen('127.0.0.1', Number(process.env.PORT ?? 0), (socket) => {
  if (!socket) throw new Error('raw uWS: cannot listen');
  serveBenchStats({ stop: () => undefined });
  process.send?.({ port: uWS.us_socket_local_port(socket) });
});
