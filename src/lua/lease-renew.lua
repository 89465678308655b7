--[[
  Renews a lease if, and only if, it is still held with the caller's token: the check and the new expiry in one
  step, so a worker that has just lost its lease (it lapsed and another worker took it) never extends the other's.

  KEYS[1]  string: the lease (its value is the holder's token)
  ARGV[1]  token
  ARGV[2]  lease length, ms

  Returns 1 when renewed, 0 when the lease is held by another token or by none.
]]
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
