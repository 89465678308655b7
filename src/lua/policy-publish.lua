--[[
  Publishes the next version of one account's policy, atomically ({ctl}): the version is one more than the
  versions kept (never reused: versions are never deleted), the account's current version moves to it, and the
  policy epoch moves so every replica reloads within its poll interval.
  KEYS[1] hash  {ctl}:policy:versions:<account>  version -> JSON {sha256, published_at, published_by, policy}
  KEYS[2] hash  {ctl}:policy:current             account -> current version
  KEYS[3] string {ctl}:policy:epoch              counter
  ARGV[1] account
  ARGV[2] the version's JSON body
  Output: the new version (integer)
]]
local version = redis.call('HLEN', KEYS[1]) + 1
redis.call('HSET', KEYS[1], version, ARGV[2])
redis.call('HSET', KEYS[2], ARGV[1], version)
redis.call('INCR', KEYS[3])
return version
