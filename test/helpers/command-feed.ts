// Every command a Redis server executes, read from MONITOR on a plain socket. ioredis' monitor mode switches
// to "monitoring" one turn after MONITOR's +OK, so a feed line arriving in the same read is taken for a reply
// ("Command queue state error"); a socket of our own has no command queue to get out of step.
import { connect, type Socket } from 'node:net';

export interface CommandFeed {
  stop(): void;
}

/** The arguments of one MONITOR line (`+<time> [<db> <client>] "cmd" "arg" …`), unescaped. */
export function monitorArgs(line: string): string[] {
  return [...line.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map(([, quoted]) => (quoted ?? '').replace(/\\(.)/g, '$1'));
}

/** Calls onCommand with each executed command's arguments; resolves once MONITOR is on. */
export function watchCommands(url: string, onCommand: (args: string[]) => void): Promise<CommandFeed> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket: Socket = connect(Number(port), hostname);
    let pending = '';
    let monitoring = false;
    socket.setEncoding('utf8');
    socket.once('error', reject);
    socket.on('connect', () => socket.write('MONITOR\r\n'));
    socket.on('data', (chunk: string) => {
      pending += chunk;
      let end = pending.indexOf('\r\n');
      while (end >= 0) {
        const line = pending.slice(0, end);
        pending = pending.slice(end + 2);
        end = pending.indexOf('\r\n');
        if (!monitoring && line === '+OK') {
          monitoring = true;
          socket.off('error', reject);
          socket.on('error', () => undefined);
          resolve({ stop: () => socket.destroy() });
        } else if (monitoring && line.startsWith('+')) {
          onCommand(monitorArgs(line));
        }
      }
    });
  });
}
