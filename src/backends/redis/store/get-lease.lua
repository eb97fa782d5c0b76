--[[
get-lease: the lease currently held, judged by server time (an expired lease is not held).

KEYS[1]  header hash   <prefix>:{<tenant>:<executionId>}:h

Returns
  {owner, generation, expiresAtMs}   a lease is held
  nil                                none (never taken, released, expired, or no execution)
]]
local lease = redis.call('HMGET', KEYS[1], 'leaseOwner', 'leaseGen', 'leaseExpiresAt')
if not lease[1] then return false end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if tonumber(lease[3] or '0') <= now then return false end
return {lease[1], tonumber(lease[2]), tonumber(lease[3])}
