// The cache-cold check's Redis read, coalesced per event-loop turn.
//
// Every carrier the LRU does not hold costs one Redis read. Sent one HGET per check, each read was its own
// ioredis command: a Command object, its promise, its chunk in the socket write and its reply to parse and
// settle, 25–60 times per turn under load. Here the reads of one turn go out together at the end of the turn
// (EndOfTurn, with the turn's budget draws and record writes) as one carrier-read.lua call, and every check of
// the turn waits on that call's one promise (numbers in bench/README.md, round 4).
//
// A single read stays a plain HGET (cheaper than a script call). On a Cluster the carrier buckets live in every
// slot, so there the reads stay single HGETs, which the Cluster client auto-pipelines per node.
import { isCluster, type RedisClient } from '../redis/connection.js';
import type { EndOfTurn } from '../redis/end-of-turn.js';
import { luaScripts } from '../redis/scripts.js';

interface ReadTurn {
  buckets: string[];
  mcs: string[];
  found: Promise<Array<string | null>>;
  resolve: (found: Array<string | null>) => void;
  reject: (error: unknown) => void;
}

export class CarrierReads {
  private turn: ReadTurn | null = null;

  constructor(
    private readonly redis: RedisClient,
    private readonly endOfTurn: EndOfTurn,
  ) {}

  /** The encoded record of `mc` in `bucket`, or null; rejects when Redis could not be read. */
  async read(bucket: string, mc: string): Promise<string | null> {
    const turn = this.turn ?? this.startTurn();
    const index = turn.buckets.push(bucket) - 1;
    turn.mcs.push(mc);
    return (await turn.found)[index] ?? null;
  }

  private startTurn(): ReadTurn {
    let resolve: (found: Array<string | null>) => void = () => undefined;
    let reject: (error: unknown) => void = () => undefined;
    const found = new Promise<Array<string | null>>((settle, fail) => {
      resolve = settle;
      reject = fail;
    });
    const turn: ReadTurn = { buckets: [], mcs: [], found, resolve, reject };
    this.turn = turn;
    this.endOfTurn.atEnd(() => this.send(turn));
    return turn;
  }

  private send(turn: ReadTurn): void {
    this.turn = null;
    const { buckets, mcs } = turn;
    // A client that throws instead of rejecting must still settle the reads: never a hanging request.
    try {
      const reading = buckets.length === 1 || isCluster(this.redis)
        ? Promise.all(buckets.map((bucket, index) => this.redis.hget(bucket, mcs[index] as string)))
        : luaScripts.carrierRead(this.redis, buckets, mcs);
      reading.then(turn.resolve, turn.reject);
    } catch (error) {
      turn.reject(error);
    }
  }
}
