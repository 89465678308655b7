// One signed POST of a webhook message (Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature with
// one `v1,<base64 HMAC-SHA256 of id.timestamp.body>` per valid secret, signed by the standardwebhooks package).
// Connections are kept alive per origin; every address is checked against SSRF at connect time (src/monitoring/ssrf.ts).
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { guardedLookup, isPrivateAddress } from './ssrf.js';

export interface SendResult {
  status: number | null;
  /** The receiver's Retry-After, in ms, when it sent one. */
  retryAfterMs: number | null;
  error: string | null;
  durationMs: number;
}

export function signatureHeader(secrets: readonly string[], id: string, timestamp: Date, body: string): string {
  return secrets.map((secret) => new Webhook(secret).sign(id, timestamp, body)).join(' ');
}

/** Retry-After as seconds or an HTTP date → ms from now (null when absent or unreadable). */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | null {
  if (!value) return null;
  if (/^\d{1,9}$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isFinite(at) ? Math.max(0, at - nowMs) : null;
}

export class WebhookSender {
  private readonly httpAgent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  private readonly httpsAgent = new https.Agent({ keepAlive: true, maxSockets: 64 });
  private readonly lookup;

  constructor(private readonly allowPrivate: boolean, private readonly timeoutMs: number) {
    this.lookup = guardedLookup(allowPrivate);
  }

  send(url: string, message: { id: string; body: string; secrets: readonly string[] }, now = new Date()): Promise<SendResult> {
    const started = performance.now();
    const done = (status: number | null, retryAfterMs: number | null, error: string | null): SendResult => ({
      status, retryAfterMs, error, durationMs: Math.round((performance.now() - started) * 10) / 10,
    });
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return Promise.resolve(done(null, null, 'invalid url'));
    }
    // An address literal skips the DNS lookup (and so the guarded lookup): check it here.
    const literal = target.hostname.replace(/^\[|\]$/g, '');
    if (isIP(literal) && !this.allowPrivate && isPrivateAddress(literal)) return Promise.resolve(done(null, null, `refused: ${literal} is a private or reserved address`));
    const body = Buffer.from(message.body);
    const headers = {
      'content-type': 'application/json',
      'content-length': String(body.length),
      'user-agent': 'carrier-eligibility-webhooks/1',
      'webhook-id': message.id,
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': signatureHeader(message.secrets, message.id, now, message.body),
    };
    const secure = target.protocol === 'https:';
    return new Promise((resolve) => {
      const request = (secure ? https : http).request(target, {
        method: 'POST', headers, agent: secure ? this.httpsAgent : this.httpAgent, lookup: this.lookup as never, timeout: this.timeoutMs,
      }, (response) => {
        const status = response.statusCode ?? null;
        const retryAfter = parseRetryAfter(response.headers['retry-after'], Date.now());
        // The body is not used; drain it so the connection can be reused.
        response.resume();
        response.on('end', () => resolve(done(status, retryAfter, null)));
        response.on('error', (error) => resolve(done(status, retryAfter, error.message)));
      });
      request.on('timeout', () => request.destroy(new Error(`no answer within ${this.timeoutMs} ms`)));
      request.on('error', (error) => resolve(done(null, null, error.message)));
      request.end(body);
    });
  }

  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }
}
