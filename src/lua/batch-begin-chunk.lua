--[[
  A worker starts a chunk: the job moves queued → running (started_at set once), and the worker gets the
  fields it needs to screen, read in the same atomic step.

  KEYS[1]  hash: job record
  ARGV[1]  now, RFC 3339

  Returns { status, key_id, snapshot_version, ruleset_version, deadline_ms, chunk_size, total };
  status is false (nil) when the job no longer exists.
]]
local status = redis.call('HGET', KEYS[1], 'status')
if status == 'queued' then
  redis.call('HSET', KEYS[1], 'status', 'running', 'started_at', ARGV[1])
end
return redis.call('HMGET', KEYS[1], 'status', 'key_id', 'snapshot_version', 'ruleset_version', 'deadline_ms', 'chunk_size', 'total')
