--[[
delete-execution: removes every key of one execution (header, lease, results) at once.

KEYS[1]  header hash   <prefix>:{<tenant>:<executionId>}:h
KEYS[2]  results hash  <prefix>:{<tenant>:<executionId>}:nodes

Returns
  summaryText   the deleted execution's summary (the caller removes its index entries)
  nil           nothing was stored
]]
local summary = redis.call('HGET', KEYS[1], 'summary')
redis.call('DEL', KEYS[1], KEYS[2])
if not summary then return false end
return summary
