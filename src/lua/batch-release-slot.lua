--[[
  Releases an API key's active-job slot if, and only if, it still names the given job (compare-and-delete),
  so a late or repeated release never frees a slot a newer job holds.

  KEYS[1]  string: the key's active slot
  ARGV[1]  job id

  Returns 1 when released, 0 when the slot held something else or nothing.
]]
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  return 1
end
return 0
