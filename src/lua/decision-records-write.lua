--[[
  Writes one event-loop turn's decision records into one bucket hash, from one packed argument.

  Sent instead of HSET KEY id1 rec1 id2 rec2 …: ioredis copies, measures and re-concatenates every argument of a
  command (two per record), which was about 1 µs of a cache-hot check in `perf` (bench/README.md, round 7), so a
  turn's records go as one string and are split here. Stored exactly as HSET would store them: field = decision
  id, value = record.

  KEYS[1]  hash: the decision bucket of one second (one key, so one cluster slot)
  ARGV[1]  PACKED   "id\nrecord\nid\nrecord…": decision ids (UUIDv7) and records (JSON text, which never holds a
                    raw newline: JSON escapes control characters), joined by "\n"
  ARGV[2]  COUNT    how many records PACKED holds: a stray newline anywhere changes what the split finds, and
                    then nothing is written (an error reply: the writer fails closed)
  ARGV[3]  TTL      seconds for EXPIRE on the hash; 0 leaves its TTL alone (set by an earlier turn)

  Returns COUNT.
]]
local packed = ARGV[1]
local expected = tonumber(ARGV[2])
local ttl = tonumber(ARGV[3])

local values = {}
local count = 0
local at = 1
local length = #packed
while at <= length + 1 do
  local stop = string.find(packed, '\n', at, true) or (length + 1)
  count = count + 1
  values[count] = string.sub(packed, at, stop - 1)
  at = stop + 1
end
if count ~= expected * 2 then
  return redis.error_reply('decision-records-write: PACKED splits into ' .. count .. ' values, not ' .. expected .. ' records')
end

-- HSET's arguments go through unpack(), which Lua bounds by its C stack (LUAI_MAXCSTACK, 8000): a batch chunk's
-- thousands of records are written in slices of 500.
local slice = 1000
for first = 1, count, slice do
  redis.call('HSET', KEYS[1], unpack(values, first, math.min(first + slice - 1, count)))
end
if ttl > 0 then
  redis.call('EXPIRE', KEYS[1], ttl)
end
return expected
