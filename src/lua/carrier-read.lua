--[[
  Reads many carriers' encoded records in one call: HGET KEYS[i] ARGV[i] for every i, in order.

  The cache-cold checks of one event-loop turn (10–60 of them under load) send their reads as this one command
  instead of one HGET each: one command object, one reply and one promise per turn on the client instead of
  per check (src/eligibility/carrier-reads.ts).

  Standalone and Sentinel only. The carrier buckets are deliberately untagged (a snapshot's buckets spread over
  every cluster slot), so on a Cluster the same reads go out as single HGETs instead.

  KEYS[i]  hash: a carrier bucket of the snapshot being served
  ARGV[i]  the MC number to read from KEYS[i]

  Returns one entry per key: the encoded record, or nil when the bucket has no such MC number (an absent field
  is false in Lua, which keeps its place in the table and reaches the client as nil).
]]
local found = {}
for i = 1, #KEYS do
  found[i] = redis.call('HGET', KEYS[i], ARGV[i])
end
return found
