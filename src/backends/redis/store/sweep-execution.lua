--[[
sweep-execution: deletes one terminal execution whose expiry has passed (its key TTL would
remove it anyway; this lets a sweep with an explicit `now` agree with the SQL stores), and
tells the sweeper what to do with its entry in the expiry index.

KEYS[1]  header hash   <prefix>:{<tenant>:<executionId>}:h
KEYS[2]  results hash  <prefix>:{<tenant>:<executionId>}:nodes

ARGV[1]  now, epoch milliseconds

Returns
  {'GONE'}                 nothing stored (expired by TTL, or deleted): prune its index entries
  {'DELETED'}              expired and deleted now: prune its index entries
  {'LATER', expiresAtMs}   expires later (it was saved again): re-score the expiry entry
  {'KEEP'}                 stored and not expiring (no longer terminal, or TTL 0): drop the expiry entry only
]]
if redis.call('EXISTS', KEYS[1]) == 0 then return {'GONE'} end
local expiresAt = redis.call('HGET', KEYS[1], 'expiresAt')
if not expiresAt then return {'KEEP'} end
if tonumber(expiresAt) > tonumber(ARGV[1]) then return {'LATER', expiresAt} end
redis.call('DEL', KEYS[1], KEYS[2])
return {'DELETED'}
