-- stats: one consistent snapshot of the queue's counters.
--
-- KEYS[1]  the task stream
-- KEYS[2]  the due-time index (sorted set)
-- KEYS[3]  the dead-letter stream
-- ARGV[1]  consumer group name
--
-- Returns: { stream length, pending (delivered, unacknowledged) count, delayed count,
--            dead-letter count, id of the first never-delivered entry or false,
--            server time seconds, server time microseconds }.
local length = redis.call('XLEN', KEYS[1])
local pending = 0
local lastDelivered = '0-0'
if redis.call('EXISTS', KEYS[1]) == 1 then
  for _, group in ipairs(redis.call('XINFO', 'GROUPS', KEYS[1])) do
    local info = {}
    for i = 1, #group, 2 do info[group[i]] = group[i + 1] end
    if info['name'] == ARGV[1] then
      pending = info['pending']
      lastDelivered = info['last-delivered-id']
    end
  end
end
-- Entries after the group's last-delivered id have never been delivered: the first is the
-- oldest ready message (expired pending entries awaiting reclaim are not counted here).
local first = redis.call('XRANGE', KEYS[1], '(' .. lastDelivered, '+', 'COUNT', 1)[1]
local time = redis.call('TIME')
return { length, pending, redis.call('ZCARD', KEYS[2]), redis.call('XLEN', KEYS[3]),
  first and first[1] or false, time[1], time[2] }
