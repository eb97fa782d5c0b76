--[[
control-create: creates one control record at version 1 when none is live (absent, or
expired), and enters its id in its (collection, tenant) index, in one step: of concurrent
creates of one id exactly one writes. Both keys carry the (collection, tenant) hash tag.

KEYS[1]  record hash  <prefix>:{ctl:<collection>:<tenant>}:rec:<id>
         fields: 'v' version, 'doc' JSON text, 'exp' expiry epoch ms (present only with a TTL)
KEYS[2]  id index     <prefix>:{ctl:<collection>:<tenant>}:ids  (member: the raw id, score 0)

ARGV[1]  id: the index member
ARGV[2]  doc: the document as JSON text
ARGV[3]  now, epoch ms of the caller's clock: a record whose 'exp' <= now has expired
ARGV[4]  expiry epoch ms (also set on the key by PEXPIREAT), or '' for a record that never
         expires

Returns 1 when created, 0 when a live record exists (nothing written).
]]
local current = redis.call('HMGET', KEYS[1], 'v', 'exp')
if current[1] and (not current[2] or tonumber(current[2]) > tonumber(ARGV[3])) then return 0 end
-- An expired record Redis has not removed yet (its clock, or lazy expiry): replaced whole.
redis.call('DEL', KEYS[1])
if ARGV[4] ~= '' then
  redis.call('HSET', KEYS[1], 'v', 1, 'doc', ARGV[2], 'exp', ARGV[4])
  redis.call('PEXPIREAT', KEYS[1], ARGV[4])
else
  redis.call('HSET', KEYS[1], 'v', 1, 'doc', ARGV[2])
end
redis.call('ZADD', KEYS[2], 0, ARGV[1])
return 1
