--[[
load-state: reads one execution's header and all its `$NODE` results as one snapshot (a save
in between cannot pair a new header with old results).

KEYS[1]  header hash   <prefix>:{<tenant>:<executionId>}:h
KEYS[2]  results hash  <prefix>:{<tenant>:<executionId>}:nodes

Returns
  {headerText, {id, result, id, result, ...}}   when the execution is stored
  nil                                          when it is not
]]
local text = redis.call('HGET', KEYS[1], 'header')
if not text then return false end
return {text, redis.call('HGETALL', KEYS[2])}
