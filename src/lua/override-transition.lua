--[[
  One state change of an override, atomically: the record is replaced only if it is still exactly what the caller
  read (compare-and-set on the stored JSON, so two approvers or an approver and a revoker never both win), and the
  change is appended to the account's override log in the same step. A new record is written when ARGV[2] is ''
  and no record has the id yet.

  KEYS[1]  hash:   the account's overrides, id -> JSON record     (all three share the {ovr:<account>} hash tag)
  KEYS[2]  stream: the account's append-only override log; fields id, action, e (JSON history entry)
  KEYS[3]  list:   this override's history entries, oldest first (what GET /v1/overrides/{id} shows)
  ARGV[1]  override id
  ARGV[2]  the record as read ('' for a new one)
  ARGV[3]  the record after the change
  ARGV[4]  action (requested, approved, rejected, revoked, expired, invalidated)
  ARGV[5]  history entry JSON

  Returns { 1, log entry id } when applied, { 0, current record or '' } when the record moved meanwhile.
]]
local current = redis.call('HGET', KEYS[1], ARGV[1])
if (current or '') ~= ARGV[2] then
  return { 0, current or '' }
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
local at = redis.call('XADD', KEYS[2], '*', 'id', ARGV[1], 'action', ARGV[4], 'e', ARGV[5])
redis.call('RPUSH', KEYS[3], ARGV[5])
return { 1, at }
