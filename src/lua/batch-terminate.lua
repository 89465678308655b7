--[[
  Ends an active job early: cancelled (owner's DELETE) or failed (deadline passed). Rows not yet recorded
  count as not_screened, so the summary adds up to total; the report renders them from the kept rows with
  the reason stored here. The stream (and its pending entries) goes; a worker still holding one of its chunks
  finds the job terminal when it tries to record and records nothing.

  KEYS[1]  hash:   job record                  (all share the {job id} hash tag)
  KEYS[2]  stream: chunk entries
  KEYS[3]  hash:   rows
  KEYS[4]  hash:   CSV blocks
  ARGV[1]  new status (cancelled | failed)     ARGV[2]  reason for the unscreened rows
  ARGV[3]  now, RFC 3339                       ARGV[4]  retention, ms

  Returns { 1, new status } when terminated, { 0, current status } when already terminal, { 0, false } when
  the job does not exist.
]]
local status = redis.call('HGET', KEYS[1], 'status')
if status ~= 'queued' and status ~= 'running' then return { 0, status } end
local total = tonumber(redis.call('HGET', KEYS[1], 'total'))
local processed = tonumber(redis.call('HGET', KEYS[1], 'processed') or '0')
if total > processed then redis.call('HINCRBY', KEYS[1], 's:not_screened', total - processed) end
redis.call('HSET', KEYS[1], 'processed', total, 'status', ARGV[1], 'finished_at', ARGV[3], 'terminal_reason', ARGV[2])
redis.call('DEL', KEYS[2])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('PEXPIRE', KEYS[3], ARGV[4])
redis.call('PEXPIRE', KEYS[4], ARGV[4])
return { 1, ARGV[1] }
