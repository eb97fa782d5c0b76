--[[
control-prune: removes the index entries (and any leftover hash) of records of ONE
(collection, tenant) that are gone or have expired, re-checking each record here, so an id
written again since the caller looked is kept. Used by list (entries it found dead) and by
sweepExpired (entries of the expiring set that are due).

KEYS[1]          id index      <prefix>:{ctl:<collection>:<tenant>}:ids
KEYS[2 .. N+1]   record hashes <prefix>:{ctl:<collection>:<tenant>}:rec:<id>, one per id

ARGV[1]          now, epoch ms of the caller's clock: a record whose 'exp' <= now has expired
ARGV[2 .. N+1]   the ids of KEYS[2 .. N+1], in the same order

Returns one integer per id, in order:
  -1  dead: its index entry was removed by this call
  -2  dead: there was no index entry left to remove
   0  live, never expires
  >0  live, expires at this epoch ms
]]
local now = tonumber(ARGV[1])
local reply = {}
for i = 2, #KEYS do
  local current = redis.call('HMGET', KEYS[i], 'v', 'exp')
  if current[1] and (not current[2] or tonumber(current[2]) > now) then
    reply[#reply + 1] = current[2] and tonumber(current[2]) or 0
  else
    redis.call('DEL', KEYS[i])
    reply[#reply + 1] = redis.call('ZREM', KEYS[1], ARGV[i]) == 1 and -1 or -2
  end
end
return reply
