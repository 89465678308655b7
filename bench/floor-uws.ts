// The floor of any server that must ask Redis before it answers: uWebSockets.js reading the request body
// (onAborted, onData, a copy of the chunk), joining one Redis round trip shared by every request of the
// event-loop turn (a PING, sent as a direct call), and answering with a fixed body of the service's verdict
// size and the service's five headers in one corked write. No auth, no budget, no decision, no record, no log.
// What the service costs above this row is its own work; what this row costs above raw uWS is the price of
// answering after Redis at all (bench/README.md).
import uWS from 'uWebSockets.js';
import { Redis } from 'ioredis';
import { serveBenchStats } from './child-stats.js';

const BODY_BYTES = Number(process.env.FLOOR_BODY_BYTES ?? 3400);
const prefix = '{"eligible":true,"found":true,"tier":"preferred","reasons":[],"degraded":false,"pad":"';
const BODY = Buffer.from(`${prefix}${'x'.repeat(Math.max(0, BODY_BYTES - prefix.length - 2))}"}`);
const HEAD = '200 OK\r\nx-request-id: floor\r\ncontent-type: application/json\r\ncache-control: no-store\r\n'
  + 'ratelimit-policy: "key";q=1000000;w=60\r\nratelimit: "key";r=999999;t=60';

const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { enableOfflineQueue: false });

interface Waiting { res: uWS.HttpResponse; aborted: boolean }
let waiting: Waiting[] = [];
let scheduled = false;

function answer(request: Waiting): void {
  if (request.aborted) return;
  request.res.cork(() => {
    request.res.writeStatus(HEAD).end(BODY);
  });
}

function roundTrip(): void {
  scheduled = false;
  const batch = waiting;
  waiting = [];
  redis.ping().then(() => batch.forEach(answer), () => batch.forEach(answer));
}

const app = uWS.App().any('/*', (res) => {
  const request: Waiting = { res, aborted: false };
  res.onAborted(() => {
    request.aborted = true;
  });
  res.onData((chunk, isLast) => {
    // The same copy as the service's adapter (src/http/uws.ts readBody): into a slice of Node's buffer pool.
    Buffer.allocUnsafe(chunk.byteLength).set(new Uint8Array(chunk));
    if (!isLast) return;
    waiting.push(request);
    if (!scheduled) {
      scheduled = true;
      setImmediate(roundTrip);
    }
  });
});

redis.once('ready', () => {
  app.listen('127.0.0.1', Number(process.env.PORT ?? 0), (socket) => {
    if (!socket) throw new Error('floor uWS: cannot listen');
    serveBenchStats({ stop: () => redis.disconnect() });
    process.send?.({ port: uWS.us_socket_local_port(socket) });
  });
});
