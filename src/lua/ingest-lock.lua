--[[
  Takes the ingest lock and a fencing token in one step: the token (an INCR'd counter) changes only when the lock
  changes hands, so a token is current exactly as long as its holder has not been replaced. All keys in {ctl}.

  KEYS[1]  string: the lock (value: the holder's {pid, host, at})
  KEYS[2]  string: the fencing counter
  ARGV[1]  the holder's value
  ARGV[2]  lock TTL, ms
  ARGV[3]  'take' to replace a holder known to be dead, anything else to take a free lock only

  Returns the new fencing token, or 0 when the lock is held (and ARGV[3] is not 'take').
]]
if ARGV[3] == 'take' then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
elseif not redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX') then
  return 0
end
return redis.call('INCR', KEYS[2])
