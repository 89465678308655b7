--[[
  Claims an API key's single active-job slot for a job: set when free, or replace a holder the caller has
  verified to be finished (compare-and-set, so two submitters repairing the same stale slot cannot both win).

  KEYS[1]  string: the key's active slot (hash tag {key id})
  ARGV[1]  job id claiming the slot
  ARGV[2]  slot TTL, ms (job deadline + margin: no key stays locked forever, even after a crash)
  ARGV[3]  job id the caller found finished and may replace, or '' to claim only a free slot

  Returns { 1, job id } when claimed, { 0, holder } when another job holds it.
]]
local holder = redis.call('GET', KEYS[1])
if (not holder) or (ARGV[3] ~= '' and holder == ARGV[3]) then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return { 1, ARGV[1] }
end
return { 0, holder }
