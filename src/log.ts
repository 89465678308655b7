// The one logger factory. Structured JSON to stdout; secrets are redacted by path as a second line of defence
// (the code never passes a plaintext key to the logger in the first place).
import { pino, type Logger } from 'pino';

export type { Logger };

export function createLogger(level: string, role: string): Logger {
  return pino({
    level,
    base: { service: 'carrier-eligibility', role },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: ['key', 'api_key', 'secret', 'headers["x-api-key"]', '*.secret_sha256'], censor: '[redacted]' },
  });
}
