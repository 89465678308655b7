// What every bench server process reports to bench/http-load.ts over IPC, so the services, the peers and the raw
// baseline are measured by the same means: CPU time of the whole process (process.cpuUsage = getrusage, all
// threads: JS, GC helpers, libuv pool) and GC pauses (perf_hooks 'gc' entries: count and total duration by kind)
// since the previous "stats" message. "stop" ends the process through the server's own shutdown.
import { PerformanceObserver, constants } from 'node:perf_hooks';
import type { Redis } from 'ioredis';

export interface GcStats {
  count: number;
  ms: number;
  /** Mark-sweep-compact collections (the long pauses); the rest are scavenges and incremental steps. */
  major: number;
}

export interface ChildStats {
  cpuMicros: number;
  /** The kernel's share of cpuMicros (socket reads and writes, TCP on loopback, epoll); absent from an older
   * checkout's bench (a BENCH_BASELINE). */
  systemMicros?: number;
  gc: GcStats;
  /** Commands sent by the request-path client (only servers that count them; null otherwise). */
  commands: Record<string, number> | null;
}

/**
 * Counts the commands a client sends (its round trips), by name, for the bench's "Redis calls/req sent" column.
 * Returns the function that hands over and resets the counts.
 */
export function countCommands(redis: Pick<Redis, 'sendCommand'>): () => Record<string, number> {
  const commands: Record<string, number> = {};
  const send = redis.sendCommand.bind(redis);
  redis.sendCommand = ((command, stream) => {
    commands[command.name] = (commands[command.name] ?? 0) + 1;
    return send(command, stream);
  }) as Redis['sendCommand'];
  return () => {
    const taken = { ...commands };
    for (const name of Object.keys(commands)) delete commands[name];
    return taken;
  };
}

export interface StatsOptions {
  stop: () => Promise<void> | void;
  /** Returns and resets the client-side Redis command counts, when the server keeps them. */
  takeCommands?: () => Record<string, number>;
}

/** Installs the GC observer and the IPC handlers; call once the server listens, then send the port. */
export function serveBenchStats(options: StatsOptions): void {
  const gc: GcStats = { count: 0, ms: 0, major: 0 };
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      gc.count += 1;
      gc.ms += entry.duration;
      if (((entry as { detail?: unknown }).detail as { kind?: number } | undefined)?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) gc.major += 1;
    }
  }).observe({ entryTypes: ['gc'] });

  let cpuMark = process.cpuUsage();
  process.on('message', (message) => {
    if (message === 'stop') {
      void Promise.resolve(options.stop()).finally(() => process.exit(0));
      return;
    }
    if (message === 'stats') {
      const { user, system } = process.cpuUsage(cpuMark);
      cpuMark = process.cpuUsage();
      const reply: ChildStats = {
        cpuMicros: user + system, systemMicros: system, gc: { ...gc, ms: Math.round(gc.ms * 100) / 100 }, commands: options.takeCommands?.() ?? null,
      };
      gc.count = 0;
      gc.ms = 0;
      gc.major = 0;
      process.send?.(reply);
    }
  });
  process.on('SIGTERM', () => void Promise.resolve(options.stop()).finally(() => process.exit(0)));
}
