// Many single-key commands whose keys live in different cluster slots (carrier buckets of one ingest batch,
// one batch chunk's lookups, one version's removal), sent as one round trip where the mode allows it.
//
// Standalone and Sentinel: one pipeline. Cluster: a pipeline may only hold keys of one node, so each command
// is sent on its own and ioredis' auto-pipelining (on for Cluster clients, src/redis/connection.ts) groups them
// per node into one write; MOVED/ASK are then followed per command. Never a multi-key command: each entry
// names exactly one key, so no CROSSSLOT can arise.
import { isCluster, type RedisClient } from './connection.js';
import { sendFlat } from './flat-command.js';

export type KeyedCommand = readonly [command: string, key: string, ...args: (string | number)[]];

/**
 * Up to this many commands go out as direct calls rather than a pipeline. ioredis builds a Pipeline object per
 * pipeline and copies every defined Lua command onto it, so each is a large dictionary-mode object with its own
 * promise; the decision recorder sends one or two commands per event-loop turn, and its per-turn pipeline
 * tripled the cache-hot service's time in GC (scavenges 120 → 340 ms per 5 s run) and cost ~5 µs per request
 *. Several direct calls are several socket writes, so large batches (ingest, batch chunks)
 * keep the pipeline.
 */
const DIRECT_MAX = 4;

/**
 * Runs every command; replies in order. Rejects with the first error (after all replies are in). `corked`: the
 * caller sends from inside EndOfTurn (src/redis/end-of-turn.ts), whose corked socket already makes any number of
 * direct calls one write, so a Pipeline would only add its cost.
 */
export async function sendKeyed(client: RedisClient, commands: readonly KeyedCommand[], options: { corked?: boolean } = {}): Promise<unknown[]> {
  if (commands.length === 0) return [];
  if (isCluster(client) || options.corked === true || commands.length <= DIRECT_MAX) {
    // Standalone and Sentinel: each sent as built (sendFlat), without ioredis' per-argument copy (a turn's record
    // HSET has two arguments per check); a Cluster client's generated methods auto-pipeline per node.
    const send = isCluster(client)
      ? ([command, ...args]: KeyedCommand) => client.call(command, ...args)
      : ([command, ...args]: KeyedCommand) => sendFlat(client, command, args.map(String));
    const settled = await Promise.allSettled(commands.map(send));
    return settled.map((outcome) => {
      if (outcome.status === 'rejected') throw outcome.reason;
      return outcome.value;
    });
  }
  const pipeline = client.pipeline();
  for (const [command, ...args] of commands) pipeline.call(command, ...args);
  const results = (await pipeline.exec()) ?? [];
  return results.map(([error, value]) => {
    if (error) throw error;
    return value;
  });
}
