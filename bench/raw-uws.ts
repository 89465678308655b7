// The raw baseline: uWebSockets.js answering every request with one fixed JSON body, with the same corked write
// the service uses. The ratio service/raw is the number that matters.
//
// By default the body is a verdict without evidence (330 bytes): the ceiling, the row its goals are read
// against. With RAW_BODY_BYTES (the bench's "raw-verdict" scenario) the body is padded to that length, the
// service's cache-hot verdict with its evidence (3.4 KB): what answering those bytes costs uWS and the kernel
// alone, so the service's cost above it is its own work and not the evidence's size.
import uWS from 'uWebSockets.js';
import { serveBenchStats } from './child-stats.js';

const VERDICT = JSON.stringify({
  eligible: true, found: true, tier: 'preferred', reasons: [], degraded: false,
  decision_id: '01936b8e-0000-7000-8000-000000000000', ruleset_version: 1, data_as_of: '2025-01-01T00:00:00.000Z',
  evaluated_at: '2025-01-01T00:00:00.000Z', cache_hit: true, mc_number: '123456',
  carrier: { dot_number: '1123456', legal_name: 'CARRIER 123456 LLC', dba_name: null },
});
const PADDED_TO = Number(process.env.RAW_BODY_BYTES ?? 0);
const PAD_OPEN = ',"pad":"';
const BODY = PADDED_TO > VERDICT.length + PAD_OPEN.length + 2
  ? `${VERDICT.slice(0, -1)}${PAD_OPEN}${'x'.repeat(PADDED_TO - VERDICT.length - PAD_OPEN.length - 1)}"}`
  : VERDICT;

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
