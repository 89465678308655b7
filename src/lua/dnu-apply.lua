--[[
  Applies do-not-use changes atomically: the list, its change log and its epoch move together, so a replica
  that has applied the log up to epoch E and reads the entries after E sees exactly the list as it is now.

  KEYS[1]  hash:   the do-not-use list, MC → JSON entry      (all four share the {ctl} hash tag)
  KEYS[2]  stream: change log; fields op (set|del), mc, entry, prev (the epoch before this entry)
  KEYS[3]  string: the epoch = id of the newest log entry
  KEYS[4]  string: the deployment mark (set if missing: the list is deployment data)
  ARGV[1]  approximate log length kept (older entries are trimmed; a replica further behind reloads the list)
  ARGV[2]  deployment mark value
  ARGV[3..] triples: op, mc, entry JSON ('' for del)

  Returns { epoch, changed }: the epoch after the call ('' when the log was never written) and how many
  changes took effect (a del of an MC not on the list changes nothing and is not logged).
]]
local prev = redis.call('GET', KEYS[3]) or ''
local changed = 0
for i = 3, #ARGV, 3 do
  local op, mc, entry = ARGV[i], ARGV[i + 1], ARGV[i + 2]
  local effective = true
  if op == 'set' then
    redis.call('HSET', KEYS[1], mc, entry)
  else
    effective = redis.call('HDEL', KEYS[1], mc) == 1
  end
  if effective then
    prev = redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[1], '*', 'op', op, 'mc', mc, 'entry', entry, 'prev', prev)
    changed = changed + 1
  end
end
if changed > 0 then
  redis.call('SET', KEYS[3], prev)
  redis.call('SET', KEYS[4], ARGV[2], 'NX')
end
return { prev, changed }
