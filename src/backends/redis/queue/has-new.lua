-- has-new: whether a partition's stream holds an entry its consumer group has not delivered
-- yet (read only): what a partitioned queue asks before sharing a receive over partitions.
--
-- KEYS[1]  the task stream
-- ARGV[1]  consumer group name
--
-- Returns: 1 when an entry after the group's last-delivered id exists (any entry when the
--          group does not exist yet), else 0.
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local lastDelivered = '0-0'
for _, group in ipairs(redis.call('XINFO', 'GROUPS', KEYS[1])) do
  local info = {}
  for i = 1, #group, 2 do info[group[i]] = group[i + 1] end
  if info['name'] == ARGV[1] then lastDelivered = info['last-delivered-id'] end
end
if redis.call('XRANGE', KEYS[1], '(' .. lastDelivered, '+', 'COUNT', 1)[1] then return 1 end
return 0
