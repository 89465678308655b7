--[[
  Draws up to N points from one API key's sliding-window budget, atomically.

  The window is exact at millisecond resolution on Redis' own clock: at any instant, the points admitted
  during the preceding WINDOW_MS never exceed LIMIT, whatever the number of replicas calling. Each call that
  admits points logs one sorted-set entry (score = admission time, member = "<token>:<count>"), so a whole
  event-loop turn's requests cost one entry and one round trip. A running sum avoids re-counting the log.

  KEYS[1]  sorted set: the admission log          (shares the {key id} hash tag with KEYS[2])
  KEYS[2]  string: sum of the counts in the log
  ARGV[1]  LIMIT       points allowed per window
  ARGV[2]  WINDOW_MS   window length in milliseconds
  ARGV[3]  N           points wanted
  ARGV[4]  TOKEN       unique per call (keeps log members distinct)

  Returns { admitted, remaining, retry_after_ms, reset_ms }
    admitted        0..N: the first `admitted` of the N wanted points were granted
    remaining       points left in the window after this draw
    retry_after_ms  when admitted < N: ms until at least one more point frees up; else 0
    reset_ms        ms until the whole current window content has expired
]]
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local wanted = tonumber(ARGV[3])

local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local cutoff = now - window

local sum = tonumber(redis.call('GET', KEYS[2]) or '0')
local expired = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', cutoff)
if #expired > 0 then
  for i = 1, #expired do
    sum = sum - tonumber(string.match(expired[i], ':(%d+)$'))
  end
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', cutoff)
end
if sum < 0 then sum = 0 end

local admitted = math.max(0, math.min(wanted, limit - sum))
if admitted > 0 then
  sum = sum + admitted
  redis.call('ZADD', KEYS[1], now, ARGV[4] .. ':' .. admitted)
end
redis.call('SET', KEYS[2], sum, 'PX', window + 1000)
redis.call('PEXPIRE', KEYS[1], window + 1000)

local retry_after = 0
if admitted < wanted then
  -- Walk the oldest entries until enough points leave the window for one more admission.
  local must_free = sum + 1 - limit
  local freed = 0
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 255, 'WITHSCORES')
  for i = 1, #oldest, 2 do
    freed = freed + tonumber(string.match(oldest[i], ':(%d+)$'))
    if freed >= must_free then
      retry_after = tonumber(oldest[i + 1]) + window - now
      break
    end
  end
  if retry_after <= 0 then retry_after = window end
end

local reset = 0
local newest = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
if #newest == 2 then reset = tonumber(newest[2]) + window - now end

return { admitted, math.max(0, limit - sum), retry_after, reset }
