--[[
control-reschedule: settles the entries of the expiring set that a sweep has handled: each one
still due (score <= now) is removed, or moved to the expiry of the live record it names. An
entry a writer moved meanwhile (score > now) is left as it is.

KEYS[1]  expiring set  <prefix>:ctl:expiring  (member JSON [collection, tenant, id], score the
         expiry epoch ms of a write with a TTL)

ARGV[1]          now, epoch ms: the sweep's time
ARGV[2], ARGV[3] ... pairs: member, then the record's expiry epoch ms when it is live and
                 expires, or '' when nothing of it is left to expire

Returns the number of entries removed or moved.
]]
local now = tonumber(ARGV[1])
local settled = 0
for i = 2, #ARGV, 2 do
  local score = redis.call('ZSCORE', KEYS[1], ARGV[i])
  if score and tonumber(score) <= now then
    if ARGV[i + 1] == '' then
      redis.call('ZREM', KEYS[1], ARGV[i])
    else
      redis.call('ZADD', KEYS[1], ARGV[i + 1], ARGV[i])
    end
    settled = settled + 1
  end
end
return settled
