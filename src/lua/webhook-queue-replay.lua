--[[
  Queues events for one webhook endpoint to be delivered again (replay), each at most once and never more
  than a cap in all: the whole request is refused when it would overflow, so a caller learns it at once.

  KEYS[1]  list: stream ids to replay, oldest request first   (both share the endpoint's {mon:<account>} tag)
  KEYS[2]  set:  the stream ids now in the list (dedupe)
  ARGV[1]  the most ids the list may hold
  ARGV[2..] stream ids, in the order to replay them

  Returns { added, queued }: how many ids were added (0 when all were already queued), and the list's length
  afterwards; added is -1 (nothing queued) when the new ids would take the list past the cap.
]]
local cap = tonumber(ARGV[1])
local fresh = {}
local seen = {}
for i = 2, #ARGV do
  local id = ARGV[i]
  if not seen[id] then
    seen[id] = true
    if redis.call('SISMEMBER', KEYS[2], id) == 0 then fresh[#fresh + 1] = id end
  end
end
local length = redis.call('LLEN', KEYS[1])
if length + #fresh > cap then return { -1, length } end
-- In slices: unpack() of thousands of arguments overflows Lua's stack.
for first = 1, #fresh, 500 do
  local last = math.min(first + 499, #fresh)
  redis.call('RPUSH', KEYS[1], unpack(fresh, first, last))
  redis.call('SADD', KEYS[2], unpack(fresh, first, last))
end
return { #fresh, length + #fresh }
