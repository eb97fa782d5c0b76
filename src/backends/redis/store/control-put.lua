--[[
control-put: creates or overwrites one control record unconditionally: the version goes on
from a live record (+1) and starts again at 1 over an absent or expired one. Both keys carry
the (collection, tenant) hash tag.

KEYS[1]  record hash  <prefix>:{ctl:<collection>:<tenant>}:rec:<id>
         fields: 'v' version, 'doc' JSON text, 'exp' expiry epoch ms (present only with a TTL)
KEYS[2]  id index     <prefix>:{ctl:<collection>:<tenant>}:ids  (member: the raw id, score 0)

ARGV[1]  id: the index member
ARGV[2]  doc: the document as JSON text
ARGV[3]  now, epoch ms of the caller's clock: a record whose 'exp' <= now has expired
ARGV[4]  expiry epoch ms (also set on the key by PEXPIREAT), or '' for a record that never
         expires

Returns the new version.
]]
local current = redis.call('HMGET', KEYS[1], 'v', 'exp')
local version = 1
if current[1] and (not current[2] or tonumber(current[2]) > tonumber(ARGV[3])) then
  version = tonumber(current[1]) + 1
else
  redis.call('DEL', KEYS[1])
  current[2] = false
end
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
redis.call('ZADD', KEYS[2], 0, ARGV[1])
return version
