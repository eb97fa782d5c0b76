--[[
renew-lease: extends a lease that `owner` still holds with `generation` and that has not
expired (an expired lease is not held, even if nobody took it yet).

KEYS[1]  header hash   <prefix>:{<tenant>:<executionId>}:h

ARGV[1]  owner
ARGV[2]  generation
ARGV[3]  ttl, milliseconds (from now, server time)

Returns
  1   renewed
  0   lost (other owner or generation, expired, released, or no such execution)
]]
local header = KEYS[1]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)

local lease = redis.call('HMGET', header, 'leaseOwner', 'leaseGen', 'leaseExpiresAt')
if lease[1] ~= ARGV[1] or tonumber(lease[2]) ~= tonumber(ARGV[2]) then return 0 end
if tonumber(lease[3] or '0') <= now then return 0 end

redis.call('HSET', header, 'leaseExpiresAt', string.format('%.0f', now + tonumber(ARGV[3])))
return 1
