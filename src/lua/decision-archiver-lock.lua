--[[
  Takes or renews the decision archiver's lease: one archiver at a time writes the archive's hash chain.

  KEYS[1]  string: the lease ({ctl})
  ARGV[1]  this archiver's token    ARGV[2]  lease length, ms

  Returns 1 when this archiver holds the lease (taken or renewed), 0 when another one does.
]]
local holder = redis.call('GET', KEYS[1])
if holder == false or holder == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0
