--[[
  Chooses the snapshot versions to remove, and claims them, in one step: retired versions whose grace is over,
  versions an ingest began but never published (orphans), and the oldest retired versions beyond the cap of
  versions kept (SNAPSHOT_MAX_VERSIONS). The serving version is never chosen. All keys are in the control slot ({ctl}).

  KEYS[1]  string: snapshot:current
  KEYS[2]  zset:   versions being written → start ms
  KEYS[3]  zset:   retired versions → removal due ms
  KEYS[4]  string: the ingest lock
  KEYS[5]  string: the ingest fencing counter
  KEYS[6]  string: the sweeper's lease
  ARGV[1]  now, ms
  ARGV[2]  most versions kept, the serving one and one being written included
  ARGV[3]  'sweeper': the scheduled sweep; 'ingest': called by the ingest lock's holder
  ARGV[4]  sweeper: its lease token; ingest: its own version (never chosen)
  ARGV[5]  sweeper: lease length, ms; ingest: versions about to be written (1 before writing, 0 after the flip)

  Sweeper: takes or renews its lease first (one sweeper at a time); another sweeper's lease → {0}. A version
  being written is an orphan only while no ingest holds the lock; sweeping one INCRs the fencing counter, so an
  ingest that lost its lock (paused past the TTL) and still writes that version can never publish it.
  Ingest: every version being written but its own is an orphan (it holds the lock).
  A retired version removed before its grace is over is re-scored due now, so a batch job pinned to it treats it
  as gone (data_stale) instead of reading a half-removed version.

  Returns {1, version, why, version, why, ...}: the versions to remove (the caller UNLINKs each, meta last), why
  being 'due' (grace over), 'orphan' or 'cap' (removed before its grace to stay within the cap).
]]
local now = tonumber(ARGV[1])
local max = tonumber(ARGV[2])
local sweeper = ARGV[3] == 'sweeper'
if sweeper then
  local holder = redis.call('GET', KEYS[6])
  if holder and holder ~= ARGV[4] then return {0} end
  redis.call('SET', KEYS[6], ARGV[4], 'PX', ARGV[5])
end
local current = redis.call('GET', KEYS[1])
local chosen = {}
local taken = {}
local function choose(version, why)
  if version ~= current and not taken[version] then
    taken[version] = true
    chosen[#chosen + 1] = version
    chosen[#chosen + 1] = why
  end
end

-- Retired versions past their grace.
for _, version in ipairs(redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now)) do choose(version, 'due') end

-- Versions being written: orphans, or one live ingest's version (which counts against the cap).
local writing = 0
local lockHeld = redis.call('EXISTS', KEYS[4]) == 1
local orphans = 0
for _, version in ipairs(redis.call('ZRANGE', KEYS[2], 0, -1)) do
  if version == current or (not sweeper and version == ARGV[4]) then
    -- the serving version, or the caller's own (counted by ARGV[5])
  elseif not sweeper or not lockHeld then
    orphans = orphans + 1
    choose(version, 'orphan')
  else
    writing = writing + 1
  end
end
if sweeper and orphans > 0 then redis.call('INCR', KEYS[5]) end
if not sweeper then writing = writing + tonumber(ARGV[5]) end

-- The cap: serving + retired kept + being written ≤ max; the oldest retired go first.
local kept = {}
for _, version in ipairs(redis.call('ZRANGE', KEYS[3], 0, -1)) do
  if version ~= current and not taken[version] then kept[#kept + 1] = version end
end
local count = (current and 1 or 0) + #kept + writing
local i = 1
while count > max and i <= #kept do
  redis.call('ZADD', KEYS[3], now, kept[i])
  choose(kept[i], 'cap')
  count = count - 1
  i = i + 1
end

table.insert(chosen, 1, 1)
return chosen
