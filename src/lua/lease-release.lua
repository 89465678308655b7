--[[
  Releases a lease if, and only if, it is still held with the caller's token (compare-and-delete), so a worker
  stopping after its lease lapsed never deletes the lease another worker has taken since.

  KEYS[1]  string: the lease (its value is the holder's token)
  ARGV[1]  token

  Returns 1 when released, 0 when the lease is held by another token or by none.
]]
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
