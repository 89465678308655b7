// Commands whose arguments are already one flat list of strings, sent without ioredis copying that list.
//
// ioredis' Command constructor copies its arguments with Array.prototype.flat(), which V8 runs element by element
// through generic property access: ~55 ns per argument, 4.8 µs for an 88-argument list against 36 ns for slice()
// (bench/micro, "redis:" rows). The request path's coalesced commands grow with the turn (a turn's record HSET has
// two arguments per check, its carrier read two per cache-cold check), so that copy alone was ~1 % of a cache-hot
// check and ~3 % of a cache-cold one in `perf`. Here the Command is built with no
// arguments and handed the caller's list afterwards; the rest (reply matching, command timeout, offline queue,
// reply decoding to UTF-8 strings) stays ioredis'.
//
// Standalone and Sentinel clients only: a Cluster client groups commands per node only when they come through its
// generated methods (auto-pipelining, src/redis/connection.ts), so Cluster callers keep those.
import { createHash } from 'node:crypto';
import { Command, type Redis } from 'ioredis';

const NO_ARGS: string[] = [];

/**
 * Sends `name` with `args` as they are. `args` must be final: strings only (no numbers, objects or nested lists,
 * which ioredis would otherwise convert), and not modified until the reply.
 */
export function sendFlat(client: Redis, name: string, args: string[]): Promise<unknown> {
  const command = new Command(name, NO_ARGS, { replyEncoding: 'utf8' });
  command.args = args;
  client.sendCommand(command);
  return command.promise as Promise<unknown>;
}

/** A Lua script as sendFlatScript sends it: its source and the SHA-1 that EVALSHA names it by. */
export interface FlatScript {
  lua: string;
  sha: string;
}

export function flatScript(lua: string): FlatScript {
  return { lua, sha: createHash('sha1').update(lua).digest('hex') };
}

/**
 * EVALSHA of `script` with `args` (the key count, the keys, then the arguments); on NOSCRIPT (a Redis that
 * restarted or flushed its scripts) the same call as EVAL, which loads it again. What ioredis' defineCommand does,
 * without its copy of the arguments.
 */
export function sendFlatScript(client: Redis, script: FlatScript, args: readonly string[]): Promise<unknown> {
  return sendFlat(client, 'evalsha', [script.sha, ...args]).catch((error: unknown) => {
    if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
    return sendFlat(client, 'eval', [script.lua, ...args]);
  });
}
