--[[
put-flow-version: publishes a stored flow document under its flowId (and version), refusing
other content under a version already published. The document itself is stored first, by
hash, so this never points at a missing document. Idempotent for the same content.

KEYS[1]  versions hash  <prefix>:flowid:{<flowId>}
         fields: 'v:<version>' -> flowHash, 'c:<flowHash>' -> '1' (published content),
                 'latest' -> flowHash of the most recent publication

ARGV[1]  '1' when the document has a version, '0' when it has none
ARGV[2]  version (ignored when ARGV[1] is '0')
ARGV[3]  flowHash

Returns
  {'OK'}                         published now, or already published with this content
  {'CONFLICT', publishedHash}    this version holds other content: nothing changed
]]
local versions, hash = KEYS[1], ARGV[3]
if ARGV[1] == '1' then
  local field = 'v:' .. ARGV[2]
  local published = redis.call('HGET', versions, field)
  if published and published ~= hash then return {'CONFLICT', published} end
  redis.call('HSET', versions, field, hash)
end
-- "Latest" is the most recent new publication: putting old content again changes nothing.
if redis.call('HSETNX', versions, 'c:' .. hash, '1') == 1 then
  redis.call('HSET', versions, 'latest', hash)
end
return {'OK'}
