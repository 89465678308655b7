--[[
  Evicts one second's decision-record bucket from Redis, but only when it holds exactly the number of records
  the archive holds for that second: a record that reached the bucket after the second was archived makes the
  counts differ, and the bucket stays until that record is archived too.

  KEYS[1]  hash: one second's records ({dec:<second>})
  ARGV[1]  records the archive holds for that second

  Returns 1 when evicted (or already gone), 0 when the counts differ.
]]
local held = redis.call('HLEN', KEYS[1])
if held == 0 then return 1 end
if held ~= tonumber(ARGV[1]) then return 0 end
redis.call('UNLINK', KEYS[1])
return 1
