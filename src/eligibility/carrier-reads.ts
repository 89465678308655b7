// The cache-cold check's Redis read, coalesced per event-loop turn.
//
// Every carrier the LRU does not hold costs one Redis read. Sent one HGET per check, each read was its own
// ioredis command: a Command object, its promise, its chunk in the socket write and its reply to parse and
// settle, 25–60 times per turn under load. Here the reads of one turn go out together at the end of the turn
// (EndOfTurn, with the turn's budget draws and record writes) as one carrier-read.lua call, and every check of
// the turn is told its record from that call's one reply. Waiting checks
// are entries of the turn's list, called back in a loop, rather than a promise and a reaction each.
//
// A single read stays a plain HGET (cheaper than a script call). On a Cluster the carrier buckets live in every
// slot, so there the reads stay single HGETs, which the Cluster client auto-pipelines per node.
import { isCluster, type RedisClient } from '../redis/connection.js';
import type { EndOfTurn } from '../redis/end-of-turn.js';
import { luaScripts } from '../redis/scripts.js';
import { tellEach } from '../redis/turn-waiters.js';

/** A check waiting for its carrier read: told exactly once, and must not throw (it answers its own failures). */
export interface CarrierReadWaiter {
  /** The carrier's encoded record, or null when the snapshot has none under that MC number. */
  carrierRead(encoded: string | null): void;
  /** Redis could not be read (the check then fails closed). */
  carrierReadFailed(error: unknown): void;
}

interface ReadTurn {
  buckets: string[];
  mcs: string[];
  waiters: CarrierReadWaiter[];
}

export class CarrierReads {
  private turn: ReadTurn | null = null;

  constructor(
    private readonly redis: RedisClient,
    private readonly endOfTurn: EndOfTurn,
  ) {}

  /** Reads `mc` in `bucket` with this turn's other reads; `waiter` is told the record (or null) or the failure. */
  readFor(bucket: string, mc: string, waiter: CarrierReadWaiter): void {
    const turn = this.turn ?? this.startTurn();
    turn.buckets.push(bucket);
    turn.mcs.push(mc);
    turn.waiters.push(waiter);
  }

  private startTurn(): ReadTurn {
    const turn: ReadTurn = { buckets: [], mcs: [], waiters: [] };
    this.turn = turn;
    this.endOfTurn.atEnd(() => this.send(turn));
    return turn;
  }

  private send(turn: ReadTurn): void {
    this.turn = null;
    const { buckets, mcs, waiters } = turn;
    // A client that throws instead of rejecting must still settle the reads: never a hanging request.
    try {
      readCarriers(this.redis, buckets, mcs).then(
        (found) => tellEach(waiters, (waiter, index) => waiter.carrierRead(found[index] ?? null)),
        (error: unknown) => tellEach(waiters, (waiter) => waiter.carrierReadFailed(error)),
      );
    } catch (error) {
      tellEach(waiters, (waiter) => waiter.carrierReadFailed(error));
    }
  }
}

/**
 * Reads `mcs[i]` from carrier bucket `buckets[i]` for every i: one carrier-read.lua call on a standalone or Sentinel
 * Redis (a plain HGET for a single read), single HGETs on a Cluster. Each entry is the encoded record or null.
 */
export function readCarriers(redis: RedisClient, buckets: readonly string[], mcs: readonly string[]): Promise<Array<string | null>> {
  return buckets.length === 1 || isCluster(redis)
    ? Promise.all(buckets.map((bucket, index) => redis.hget(bucket, mcs[index] as string)))
    : luaScripts.carrierRead(redis, buckets, mcs);
}
