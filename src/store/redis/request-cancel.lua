--[[
request-cancel: marks a stored execution as to be cancelled. The mark lives in the header
hash beside the state (`cancelRequested`), which save-state.lua never writes, so a save by
the worker running the execution cannot clear it.

KEYS[1]  header hash   <prefix>:{<tenant>:<executionId>}:h

Returns
  1   marked (or already marked)
  0   no such execution (nothing created)
]]
if redis.call('HEXISTS', KEYS[1], 'header') == 0 then return 0 end
redis.call('HSET', KEYS[1], 'cancelRequested', '1')
return 1
