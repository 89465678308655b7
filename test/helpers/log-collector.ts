// A log destination that keeps what it is given, for tests that read the lines a logger wrote.
import type { Destination } from '../../src/log.js';

export function logCollector(): Destination & { text(): string } {
  let written = '';
  return {
    write(chunk: Buffer) {
      written += chunk.toString('utf8');
      return true;
    },
    flush(callback) {
      callback?.();
    },
    flushSync() {},
    text: () => written,
  };
}
