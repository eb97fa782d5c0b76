--[[
release-lease: a local function (included before release-leases.lua, which calls it once per
release of a batch, each with its own KEYS and ARGV: run-batch.lua) that gives a lease up if
`owner` still holds it with `generation` (idempotent).
The generation stays: the next acquisition increments it further.

KEYS[1]  header hash   <prefix>:{<tenant>:<executionId>}:h

ARGV[1]  owner
ARGV[2]  generation

Returns
  1   released
  0   not held by this owner and generation (nothing changed)
]]
-- KEYS and ARGV: this release's own (the parameters shadow the script's globals).
local function release_lease(KEYS, ARGV)
  local header = KEYS[1]
  local lease = redis.call('HMGET', header, 'leaseOwner', 'leaseGen')
  if lease[1] ~= ARGV[1] or tonumber(lease[2]) ~= tonumber(ARGV[2]) then return 0 end
  redis.call('HDEL', header, 'leaseOwner', 'leaseExpiresAt')
  return 1
end
