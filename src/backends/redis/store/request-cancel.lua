--[[
request-cancel: marks a stored execution as to be cancelled. The mark lives in the header
hash beside the state (`cancelRequested`), which save-state.lua only clears when the save
makes the execution terminal: a save by the worker running it cannot clear a live request, and
a later `retry` of an `error` execution is not cancelled by a request made against the run that
failed. A request for a terminal execution is spent at once (nothing set).

KEYS[1]  header hash   <prefix>:{<tenant>:<executionId>}:h

Returns
  1   marked (or already marked)
  0   no such execution (nothing created)
]]
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return 0 end
-- A cancel request is for a run: a terminal execution's is spent (save-state.lua clears it).
if status == 'completed' or status == 'error' or status == 'cancelled' then return 1 end
redis.call('HSET', KEYS[1], 'cancelRequested', '1')
return 1
