// The request path's Redis writes of one event-loop turn, sent as one socket write.
//
// Every cache-hot check needs two Redis commands (its coalesced budget draw, then its coalesced decision record),
// and every cache-cold check one more (its carrier lookup). Issued one by one, each command is its own write(2)
// on the Redis socket, and on this VM a socket write that wakes Redis costs tens of microseconds of kernel time.
// Features hand their sends to atEnd() instead; at the end of the turn they all run back to back with the
// socket corked, so the turn's commands leave in one writev: one write per turn instead of one per draw, one per
// record flush and one per cold lookup.
//
// Standalone and Sentinel only: a Cluster client writes to one socket per node and coalesces by itself
// (auto-pipelining, src/redis/connection.ts), so there the sends simply run at the end of the turn.
import type { Socket } from 'node:net';
import { isCluster, type RedisClient } from './connection.js';

export class EndOfTurn {
  private pending: Array<() => void> = [];
  private scheduled = false;
  private readonly runTurn = () => this.run();

  constructor(private readonly client: RedisClient) {}

  /**
   * Runs `send` at the end of this event-loop turn, together with every other send handed over in the turn.
   * `send` must issue its commands synchronously (an async function does, up to its first await).
   */
  atEnd(send: () => void): void {
    this.pending.push(send);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.runTurn);
    }
  }

  private run(): void {
    this.scheduled = false;
    const sends = this.pending;
    this.pending = [];
    const socket = this.socket();
    socket?.cork();
    try {
      for (const send of sends) {
        try {
          send();
        } catch {
          // A send reports its own failure through the promise it settles; one failing must not stop the others.
        }
      }
    } finally {
      socket?.uncork();
    }
  }

  /** The connection's socket while it can take writes (ioredis replaces it on every reconnect). */
  private socket(): Socket | null {
    if (isCluster(this.client)) return null;
    const stream = (this.client as { stream?: Socket }).stream;
    return stream !== undefined && stream.writable ? stream : null;
  }
}
