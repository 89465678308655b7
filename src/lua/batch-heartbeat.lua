--[[
  Keeps a chunk a worker is still working on (e.g. waiting for budget) from being claimed by another worker:
  resets the entry's idle time, but only while this consumer still owns it, so a worker that stalled and lost
  the chunk to XAUTOCLAIM does not take it back.

  KEYS[1]  stream: chunk entries
  ARGV[1]  consumer group    ARGV[2]  consumer name    ARGV[3]  entry id

  Returns 1 when still owned (idle time reset), 0 when lost or the job's stream is gone.
]]
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local pending = redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[3], ARGV[3], 1)
if #pending == 1 and pending[1][2] == ARGV[2] then
  redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], 0, ARGV[3], 'JUSTID')
  return 1
end
return 0
