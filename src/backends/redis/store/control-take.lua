--[[
control-take: reads and deletes one control record (and its index entry) in one step: of
concurrent takes at most one gets it. An expired record is deleted too but not returned.

KEYS[1]  record hash  <prefix>:{ctl:<collection>:<tenant>}:rec:<id>
         fields: 'v' version, 'doc' JSON text, 'exp' expiry epoch ms (present only with a TTL)
KEYS[2]  id index     <prefix>:{ctl:<collection>:<tenant>}:ids  (member: the raw id, score 0)

ARGV[1]  id: the index member
ARGV[2]  now, epoch ms of the caller's clock: a record whose 'exp' <= now has expired

Returns
  {'OK', version, doc, exp}  the live record that was deleted (exp '' when it never expired)
  {'NONE'}                   there was no live record
]]
local current = redis.call('HMGET', KEYS[1], 'v', 'doc', 'exp')
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
if not current[1] or not current[2] then return {'NONE'} end
if current[3] and tonumber(current[3]) <= tonumber(ARGV[2]) then return {'NONE'} end
return {'OK', current[1], current[2], current[3] or ''}
