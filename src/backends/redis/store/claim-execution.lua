--[[
claim-execution: a local function (included before claim-executions.lua, which calls it once
per claim of a batch, each with its own KEYS and ARGV): what a worker does first with a message:
take the execution's lease (exactly as acquire-lease.lua), read its state (exactly as
load-state.lua: header and results as one snapshot, taken under the new lease) and its cancel
mark (as the store's isCancelRequested).

KEYS[1]  header hash   <prefix>:{<tenant>:<executionId>}:h
KEYS[2]  results hash  <prefix>:{<tenant>:<executionId>}:nodes

ARGV[1]  owner (worker id)
ARGV[2]  ttl, milliseconds

Returns
  {'OK', generation, expiresAtMs, headerText, {id, result, ...}, cancelRequested 0|1}
                                      acquired, with the state read after the acquisition
  {'HELD', owner, expiresAtMs}        another owner holds an unexpired lease: nothing changed
  {'MISSING'}                         no such execution: nothing created
]]
-- KEYS and ARGV: this claim's own (the parameters shadow the script's globals).
local function claim_execution(KEYS, ARGV)
  local header = KEYS[1]
  local stored = redis.call('HMGET', header, 'header', 'leaseOwner', 'leaseExpiresAt', 'cancelRequested',
    'leaseGen', 'status')
  if not stored[1] then return {'MISSING'} end

  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)

  local owner = stored[2]
  local expires = tonumber(stored[3] or '0')
  if owner and owner ~= ARGV[1] and expires > now then return {'HELD', owner, expires} end

  -- The holder re-acquiring counts up by one. A new holder gets at least the server's clock in
  -- µs: after a failover that lost the previous holder's acquisition (asynchronous replication),
  -- the promoted replica hands out a generation that holder never had, so its fence stays stale;
  -- and an execution deleted and made anew (its count starts again) never hands out a generation
  -- a stalled worker of the old one still holds (in ms, delete, create and acquire fit in one).
  local generation = tonumber(stored[5] or '0') + 1
  if owner ~= ARGV[1] or expires <= now then
    generation = math.max(generation, tonumber(t[1]) * 1000000 + tonumber(t[2]))
  end
  local expiresAt = now + tonumber(ARGV[2])
  redis.call('HSET', header, 'leaseGen', string.format('%.0f', generation), 'leaseOwner', ARGV[1],
    'leaseExpiresAt', string.format('%.0f', expiresAt))
  -- A terminal execution's mark is spent (save-state.lua clears it; a mark older than that rule
  -- may still be stored): it must not cancel an operator's retry.
  local status = stored[6]
  local terminal = status == 'completed' or status == 'error' or status == 'cancelled'
  local cancelRequested = 0
  if stored[4] == '1' then
    if terminal then redis.call('HDEL', header, 'cancelRequested') else cancelRequested = 1 end
  end
  return {'OK', generation, expiresAt, stored[1], redis.call('HGETALL', KEYS[2]), cancelRequested}
end
