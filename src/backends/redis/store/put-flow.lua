--[[
put-flow: stores a flow document in its tenant and publishes it under its flowId (and
version), in one step: when the version already holds other content nothing is written.
Idempotent for the same content: the first writer's record is kept, and returned to every
later writer. Both keys carry the tenant's hash tag, so they share one slot.

KEYS[1]  document hash  <prefix>:{<tenant>}:flowdoc:<flowHash>
         fields: 'text' (the document through the codec), 'flowId', 'version' (JSON, so null
                 survives), 'createdAt' (epoch ms)
KEYS[2]  versions hash  <prefix>:{<tenant>}:flowid:<flowId>; absent when the document has no
         flowId. fields: 'v:<version>' -> flowHash, 'c:<flowHash>' -> '1' (published content),
         'latest' -> flowHash of the most recent publication

ARGV[1]  flowHash
ARGV[2]  '1' when the document has a version, '0' when it has none
ARGV[3]  version (ignored when ARGV[2] is '0')
ARGV[4]  '1' when this content was published before the tenant's keys existed (a legacy key
         of tenant default): publishing it again is no new publication, 'latest' stays
ARGV[5]  text, ARGV[6] flowId JSON, ARGV[7] version JSON, ARGV[8] createdAt epoch ms: the
         record, written only when the document is new to the tenant

Returns
  {'OK', text, flowId JSON, version JSON, createdAt}  the stored record
  {'CONFLICT', publishedHash}                         the version holds other content: nothing written
]]
local doc, versions, hash = KEYS[1], KEYS[2], ARGV[1]
local field = 'v:' .. ARGV[3]
if versions and ARGV[2] == '1' then
  local published = redis.call('HGET', versions, field)
  if published and published ~= hash then return {'CONFLICT', published} end
end
redis.call('HSETNX', doc, 'text', ARGV[5])
redis.call('HSETNX', doc, 'flowId', ARGV[6])
redis.call('HSETNX', doc, 'version', ARGV[7])
redis.call('HSETNX', doc, 'createdAt', ARGV[8])
if versions then
  if ARGV[2] == '1' then redis.call('HSET', versions, field, hash) end
  -- "Latest" is the most recent new publication: putting old content again changes nothing.
  if redis.call('HSETNX', versions, 'c:' .. hash, '1') == 1 and ARGV[4] ~= '1' then
    redis.call('HSET', versions, 'latest', hash)
  end
end
local record = redis.call('HMGET', doc, 'text', 'flowId', 'version', 'createdAt')
return {'OK', record[1], record[2], record[3], record[4]}
