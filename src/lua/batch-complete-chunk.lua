--[[
  Records one screened chunk exactly once, atomically: its CSV lines, the outcome counters, the processed
  count, the stream acknowledgement and, for the last chunk, the job's completion. Idempotent: a chunk
  already recorded (a claimed duplicate after a worker stalled) or a job already terminal (cancelled, failed)
  is only acknowledged, never counted twice.

  KEYS[1]  hash:   job record                  (all share the {job id} hash tag)
  KEYS[2]  hash:   CSV blocks, chunk index → lines
  KEYS[3]  stream: chunk entries
  KEYS[4]  hash:   rows (dropped on completion: every chunk then has its lines)
  ARGV[1]  consumer group        ARGV[2]  stream entry id
  ARGV[3]  chunk index           ARGV[4]  CSV block
  ARGV[5]  rows in the chunk
  ARGV[6..11]  counts: eligible, review, hard_stop, not_found, not_screened, error
  ARGV[12] now, RFC 3339         ARGV[13] retention, ms

  Returns 0 (nothing recorded, entry acknowledged), 1 (recorded), 2 (recorded; the job is now completed and
  the caller releases the key's active slot).
]]
local status = redis.call('HGET', KEYS[1], 'status')
if status ~= 'queued' and status ~= 'running' then
  if redis.call('EXISTS', KEYS[3]) == 1 then redis.call('XACK', KEYS[3], ARGV[1], ARGV[2]) end
  return 0
end
if redis.call('HSETNX', KEYS[2], ARGV[3], ARGV[4]) == 0 then
  redis.call('XACK', KEYS[3], ARGV[1], ARGV[2])
  return 0
end
local outcomes = { 'eligible', 'review', 'hard_stop', 'not_found', 'not_screened', 'error' }
for i = 1, 6 do
  local count = tonumber(ARGV[5 + i])
  if count > 0 then redis.call('HINCRBY', KEYS[1], 's:' .. outcomes[i], count) end
end
local processed = redis.call('HINCRBY', KEYS[1], 'processed', tonumber(ARGV[5]))
redis.call('XACK', KEYS[3], ARGV[1], ARGV[2])
redis.call('PEXPIRE', KEYS[2], redis.call('PTTL', KEYS[1]))
if processed >= tonumber(redis.call('HGET', KEYS[1], 'total')) then
  redis.call('HSET', KEYS[1], 'status', 'completed', 'finished_at', ARGV[12])
  redis.call('DEL', KEYS[3], KEYS[4])
  redis.call('PEXPIRE', KEYS[1], ARGV[13])
  redis.call('PEXPIRE', KEYS[2], ARGV[13])
  return 2
end
return 1
