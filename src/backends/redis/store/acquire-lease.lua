--[[
acquire-lease: takes an execution's lease and raises its fencing generation atomically (see below).
The same owner may re-acquire (a new generation); another owner only once the lease expired.
Time is the server's (TIME), so workers with skewed clocks agree on expiry.

KEYS[1]  header hash   <prefix>:{<tenant>:<executionId>}:h

ARGV[1]  owner (worker id)
ARGV[2]  ttl, milliseconds

Returns
  {'OK', generation, expiresAtMs}     acquired
  {'HELD', owner, expiresAtMs}        another owner holds an unexpired lease
  {'MISSING'}                         no such execution (the store answers null)
]]
local header = KEYS[1]
if redis.call('HEXISTS', header, 'header') == 0 then return {'MISSING'} end

local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)

local owner = redis.call('HGET', header, 'leaseOwner')
local expires = tonumber(redis.call('HGET', header, 'leaseExpiresAt') or '0')
if owner and owner ~= ARGV[1] and expires > now then return {'HELD', owner, expires} end

-- The holder re-acquiring counts up by one. A new holder gets at least the server's clock in
-- µs: after a failover that lost the previous holder's acquisition (asynchronous replication),
-- the promoted replica hands out a generation that holder never had, so its fence stays stale;
-- and an execution deleted and made anew (its count starts again) never hands out a generation
-- a stalled worker of the old one still holds (in ms, delete, create and acquire fit in one).
local generation = tonumber(redis.call('HGET', header, 'leaseGen') or '0') + 1
if owner ~= ARGV[1] or expires <= now then
  generation = math.max(generation, tonumber(t[1]) * 1000000 + tonumber(t[2]))
end
redis.call('HSET', header, 'leaseGen', string.format('%.0f', generation))
local expiresAt = now + tonumber(ARGV[2])
redis.call('HSET', header, 'leaseOwner', ARGV[1], 'leaseExpiresAt', string.format('%.0f', expiresAt))
return {'OK', generation, expiresAt}
