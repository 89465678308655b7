--[[
  Writes one review item (one per account and carrier) if it is still exactly what the caller read
  (compare-and-set on the stored JSON: concurrent sightings from several replicas are merged by retrying, never
  lost), and indexes its MC number for cursor pagination.

  KEYS[1]  hash: the account's review items, MC -> JSON item   (both share the {ovr:<account>} hash tag)
  KEYS[2]  zset: the account's reviewed MC numbers, score = MC as a number
  ARGV[1]  MC number
  ARGV[2]  the item as read ('' when there was none)
  ARGV[3]  the item to write
  ARGV[4]  MC as a number

  Returns 1 when written, 0 when the item moved meanwhile.
]]
local current = redis.call('HGET', KEYS[1], ARGV[1])
if (current or '') ~= ARGV[2] then
  return 0
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[1])
return 1
