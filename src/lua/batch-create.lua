--[[
  Creates a batch job: its record, its rows (one hash field per chunk), one stream entry per chunk and the
  consumer group, all at once. Workers only find the job once it is listed as active (after the per-key slot
  is claimed, a separate step), so nothing is screened for a job whose submission then loses the slot race.
  Every key gets an expiry (deadline + retention) so a job orphaned by a crash during submission vanishes.

  KEYS[1]  hash:   job record                   (all three share the {job id} hash tag)
  KEYS[2]  hash:   rows, chunk index → JSON
  KEYS[3]  stream: chunk entries
  ARGV[1]  expiry of every key, ms
  ARGV[2]  consumer group name
  ARGV[3]  F = number of job field/value pairs that follow
  ARGV[4 .. 3+2F]      job fields and values
  ARGV[4+2F .. #ARGV]  chunk JSON, chunk 0 first

  Returns 1 when created, 0 when a job with this id already exists (nothing written).
]]
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local pairs_count = tonumber(ARGV[3])
local first_chunk = 4 + 2 * pairs_count
for i = 4, first_chunk - 1, 2 do
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
end
for i = first_chunk, #ARGV do
  local chunk = tostring(i - first_chunk)
  redis.call('HSET', KEYS[2], chunk, ARGV[i])
  redis.call('XADD', KEYS[3], '*', 'chunk', chunk)
end
redis.call('XGROUP', 'CREATE', KEYS[3], ARGV[2], '0')
for i = 1, 3 do redis.call('PEXPIRE', KEYS[i], ARGV[1]) end
return 1
