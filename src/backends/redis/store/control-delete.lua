--[[
control-delete: deletes one control record and its index entry, in one step. An expired
record is deleted too (the sweep's work done early) but does not count.

KEYS[1]  record hash  <prefix>:{ctl:<collection>:<tenant>}:rec:<id>
         fields: 'v' version, 'doc' JSON text, 'exp' expiry epoch ms (present only with a TTL)
KEYS[2]  id index     <prefix>:{ctl:<collection>:<tenant>}:ids  (member: the raw id, score 0)

ARGV[1]  id: the index member
ARGV[2]  now, epoch ms of the caller's clock: a record whose 'exp' <= now has expired

Returns 1 when a live record was deleted, 0 otherwise.
]]
local current = redis.call('HMGET', KEYS[1], 'v', 'exp')
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
if not current[1] or (current[2] and tonumber(current[2]) <= tonumber(ARGV[2])) then return 0 end
return 1
