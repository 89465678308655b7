// Operator feedback while files stream: a cli-progress bar per file on a TTY (rows/s, ETA from bytes read),
// plain log lines every few seconds otherwise (CI, kubectl logs), silence in tests.
import cliProgress from 'cli-progress';

export interface FileProgress {
  bytes(read: number): void;
  done(rows: number): void;
}

export interface ProgressReporter {
  file(label: string, totalBytes: number, rows: () => number): FileProgress;
  log(line: string): void;
}

export const silentProgress: ProgressReporter = {
  file: () => ({ bytes: () => undefined, done: () => undefined }),
  log: () => undefined,
};

function rate(rows: number, startedMs: number): string {
  const seconds = Math.max((Date.now() - startedMs) / 1000, 0.001);
  return `${Math.round(rows / seconds).toLocaleString('en-US')} rows/s`;
}

export function consoleProgress(stream: NodeJS.WriteStream = process.stderr): ProgressReporter {
  const log = (line: string) => stream.write(`${line}\n`);
  if (!stream.isTTY) {
    return {
      log,
      file(label, totalBytes, rows) {
        const started = Date.now();
        let lastLog = started;
        return {
          bytes(read) {
            if (Date.now() - lastLog < 5000) return;
            lastLog = Date.now();
            const pct = totalBytes > 0 ? Math.floor((read / totalBytes) * 100) : 0;
            log(`ingest: ${label} ${pct}% ${rows().toLocaleString('en-US')} rows (${rate(rows(), started)})`);
          },
          done(total) {
            log(`ingest: ${label} done, ${total.toLocaleString('en-US')} rows in ${((Date.now() - started) / 1000).toFixed(1)} s (${rate(total, started)})`);
          },
        };
      },
    };
  }
  return {
    log,
    file(label, totalBytes, rows) {
      const started = Date.now();
      const bar = new cliProgress.SingleBar({
        format: `${label.padEnd(18)} [{bar}] {percentage}% | {rows} rows | {rate} | ETA {eta_formatted}`,
        stream, hideCursor: true, clearOnComplete: false, etaBuffer: 50,
      }, cliProgress.Presets.shades_classic);
      bar.start(Math.max(totalBytes, 1), 0, { rows: 0, rate: '' });
      return {
        bytes(read) {
          bar.update(read, { rows: rows().toLocaleString('en-US'), rate: rate(rows(), started) });
        },
        done(total) {
          bar.update(Math.max(totalBytes, 1), { rows: total.toLocaleString('en-US'), rate: rate(total, started) });
          bar.stop();
        },
      };
    },
  };
}
