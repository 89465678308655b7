// Loads the Lua scripts in src/lua once and registers them on a client with defineCommand, which handles
// EVALSHA and the NOSCRIPT fallback. Key counts live here in a typed table, not in file names.
import { readFileSync } from 'node:fs';
import type { Redis } from 'ioredis';

const LUA_DIR = new URL('../lua/', import.meta.url);

const SCRIPTS = {
  slidingWindowDraw: { file: 'sliding-window-draw.lua', keys: 2 },
  batchCreate: { file: 'batch-create.lua', keys: 3 },
  batchClaimSlot: { file: 'batch-claim-slot.lua', keys: 1 },
  batchReleaseSlot: { file: 'batch-release-slot.lua', keys: 1 },
  batchBeginChunk: { file: 'batch-begin-chunk.lua', keys: 1 },
  batchCompleteChunk: { file: 'batch-complete-chunk.lua', keys: 4 },
  batchTerminate: { file: 'batch-terminate.lua', keys: 4 },
  batchHeartbeat: { file: 'batch-heartbeat.lua', keys: 1 },
} as const;

export type ScriptName = keyof typeof SCRIPTS;

type ScriptCall = (...args: (string | number)[]) => Promise<unknown>;

const registered = new WeakSet<Redis>();

/** Registers every script on the client (idempotent) and returns a typed caller. */
export function scripts(redis: Redis): Record<ScriptName, ScriptCall> {
  if (!registered.has(redis)) {
    for (const [name, { file, keys }] of Object.entries(SCRIPTS)) {
      redis.defineCommand(name, { numberOfKeys: keys, lua: readFileSync(new URL(file, LUA_DIR), 'utf8') });
    }
    registered.add(redis);
  }
  const commands = redis as unknown as Record<ScriptName, ScriptCall>;
  return Object.fromEntries(
    Object.keys(SCRIPTS).map((name) => [name, commands[name as ScriptName].bind(redis)]),
  ) as Record<ScriptName, ScriptCall>;
}
