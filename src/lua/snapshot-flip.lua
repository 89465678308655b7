--[[
  Makes a snapshot version current, if and only if the caller still holds the ingest's fencing token: an ingest
  paused (SIGSTOP, a long GC, a partition) past its lock's TTL, while another ingest took the lock, finds the
  fence moved on and publishes nothing. Meta, pointer, version sets, the deployment mark and the version's
  not-eligible bitmap change in one step. All keys are in the control slot ({ctl}).

  KEYS[1]  string: the fencing counter (INCR'd by every lock acquisition)
  KEYS[2]  string: snapshot:current
  KEYS[3]  string: this version's meta
  KEYS[4]  zset:   versions being written
  KEYS[5]  zset:   retired versions → removal due ms
  KEYS[6]  string: the deployment mark (set NX)
  KEYS[7]  string: this version's not-eligible bitmap
  ARGV[1]  the caller's fencing token
  ARGV[2]  version
  ARGV[3]  meta JSON
  ARGV[4]  removal due ms of the version this one replaces
  ARGV[5]  deployment mark value
  ARGV[6]  not-eligible bitmap ('' for none)

  Returns {1, previous version or ''} when published, {0, current fencing token} when the token is stale.
]]
local fence = redis.call('GET', KEYS[1])
if fence ~= ARGV[1] then
  return {0, fence or ''}
end
local previous = redis.call('GET', KEYS[2])
redis.call('SET', KEYS[6], ARGV[5], 'NX')
redis.call('SET', KEYS[3], ARGV[3])
redis.call('SET', KEYS[2], ARGV[2])
redis.call('ZREM', KEYS[4], ARGV[2])
if previous and previous ~= ARGV[2] then
  redis.call('ZADD', KEYS[5], ARGV[4], previous)
end
if ARGV[6] ~= '' then
  redis.call('SET', KEYS[7], ARGV[6])
end
return {1, previous or ''}
