--[[
  Removes one account from a carrier's watchers, with the account's own baseline of the carrier; when none is
  left, the carrier leaves its shard's watched set, baseline and schedule in the same step (so a concurrent watch
  by another account is never half undone).

  KEYS[1]  set:  accounts watching the carrier      (all five share the {monw:<shard>} hash tag)
  KEYS[2]  set:  watched carriers of the shard
  KEYS[3]  hash: baseline verdicts of the shard
  KEYS[4]  zset: time schedule of the shard
  KEYS[5]  hash: per-account baseline verdicts of the shard (field <MC>:<account>)
  ARGV[1]  account
  ARGV[2]  MC number

  Returns the number of accounts still watching the carrier.
]]
redis.call('SREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[5], ARGV[2] .. ':' .. ARGV[1])
local left = redis.call('SCARD', KEYS[1])
if left == 0 then
  redis.call('SREM', KEYS[2], ARGV[2])
  redis.call('HDEL', KEYS[3], ARGV[2])
  redis.call('ZREM', KEYS[4], ARGV[2])
end
return left
