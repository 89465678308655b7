--[[
  Takes or renews the decision archiver's lease: one archiver at a time writes the archive's hash chain.

  KEYS[1]  string: the lease ({ctl})
  ARGV[1]  this archiver's token    ARGV[2]  lease length, ms (0: give the lease up if held)

  Returns 1 when this archiver holds the lease (taken or renewed) or gave it up, 0 when another one holds it.
]]
local holder = redis.call('GET', KEYS[1])
if ARGV[2] == '0' then
  if holder == ARGV[1] then redis.call('DEL', KEYS[1]) return 1 end
  return 0
end
if holder == false or holder == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0
