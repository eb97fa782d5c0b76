--[[
control-replace: compare-and-set of one control record: when it is live and at the expected
version, writes the new document at version + 1 and the new expiry (none clears the old one).
Both keys carry the (collection, tenant) hash tag.

KEYS[1]  record hash  <prefix>:{ctl:<collection>:<tenant>}:rec:<id>
         fields: 'v' version, 'doc' JSON text, 'exp' expiry epoch ms (present only with a TTL)
KEYS[2]  id index     <prefix>:{ctl:<collection>:<tenant>}:ids  (member: the raw id, score 0)

ARGV[1]  id: the index member
ARGV[2]  doc: the document as JSON text
ARGV[3]  now, epoch ms of the caller's clock: a record whose 'exp' <= now has expired
ARGV[4]  expiry epoch ms (also set on the key by PEXPIREAT), or '' for a record that never
         expires
ARGV[5]  the expected version (an integer)

Returns 1 when replaced, 0 when the record is absent, expired or at another version (nothing
written).
]]
local current = redis.call('HMGET', KEYS[1], 'v', 'exp')
if not current[1] or (current[2] and tonumber(current[2]) <= tonumber(ARGV[3])) then return 0 end
if tonumber(current[1]) ~= tonumber(ARGV[5]) then return 0 end
local version = tonumber(ARGV[5]) + 1
if ARGV[4] ~= '' then
  redis.call('HSET', KEYS[1], 'v', version, 'doc', ARGV[2], 'exp', ARGV[4])
  redis.call('PEXPIREAT', KEYS[1], ARGV[4])
else
  redis.call('HSET', KEYS[1], 'v', version, 'doc', ARGV[2])
  if current[2] then
    redis.call('HDEL', KEYS[1], 'exp')
    redis.call('PERSIST', KEYS[1])
  end
end
-- Already there for a live record; re-adding heals an index entry lost to an operator.
redis.call('ZADD', KEYS[2], 0, ARGV[1])
return 1
