// A real webhook receiver for the monitoring tests: an HTTP server on 127.0.0.1 that verifies every delivery
// with the standardwebhooks package and answers what the test scripts (status codes, delays).
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface Received {
  id: string;
  timestamp: string;
  signature: string;
  body: Record<string, unknown>;
  verified: boolean;
  status: number;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** webhook-ids in the order their requests arrived (before any answer). */
  arrived: string[];
  /** Verified and accepted (2xx) deliveries. */
  accepted(): Received[];
  /** Decides the answer per request (default 200); may delay. */
  respond: (request: { id: string; body: Record<string, unknown>; attempt: number }) => { status: number; headers?: Record<string, string>; delayMs?: number };
  secrets: string[];
  close(): Promise<void>;
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

export async function startReceiver(): Promise<Receiver> {
  const attempts = new Map<string, number>();
  const receiver: Receiver = {
    url: '', received: [], arrived: [], secrets: [],
    accepted: () => receiver.received.filter((item) => item.verified && item.status >= 200 && item.status < 300),
    respond: () => ({ status: 200 }),
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
  const server: Server = createServer((request, response) => {
    void (async () => {
      const raw = await readBody(request);
      const headers = {
        'webhook-id': String(request.headers['webhook-id'] ?? ''),
        'webhook-timestamp': String(request.headers['webhook-timestamp'] ?? ''),
        'webhook-signature': String(request.headers['webhook-signature'] ?? ''),
      };
      receiver.arrived.push(headers['webhook-id']);
      let verified = false;
      for (const secret of receiver.secrets) {
        try {
          new Webhook(secret).verify(raw, headers);
          verified = true;
          break;
        } catch {
          // try the next secret
        }
      }
      const body = JSON.parse(raw) as Record<string, unknown>;
      const attempt = (attempts.get(headers['webhook-id']) ?? 0) + 1;
      attempts.set(headers['webhook-id'], attempt);
      const answer = verified ? receiver.respond({ id: headers['webhook-id'], body, attempt }) : { status: 401 };
      if (answer.delayMs) await new Promise((resolve) => setTimeout(resolve, answer.delayMs));
      receiver.received.push({ id: headers['webhook-id'], timestamp: headers['webhook-timestamp'], signature: headers['webhook-signature'], body, verified, status: answer.status });
      response.writeHead(answer.status, answer.headers ?? {});
      response.end();
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return receiver;
}
