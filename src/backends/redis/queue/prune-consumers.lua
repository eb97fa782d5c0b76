-- prune-consumers: deletes the group's consumers that hold no pending entry and have not been
-- seen for at least ARGV[2] ms. Every worker start registers a consumer of its own, so without
-- this the group's consumer list grows with every restart. Deleting a consumer with nothing
-- pending loses nothing (XGROUP DELCONSUMER would drop only its pending entries, and there are
-- none; the check and the delete are one atomic step), and a live worker that is deleted is
-- registered again by its next XREADGROUP.
--
-- KEYS[1]  the task stream
-- ARGV[1]  consumer group name
-- ARGV[2]  idle time, ms, a consumer must reach to be deleted
--
-- Returns: the number of consumers deleted.
local deleted = 0
local consumers = redis.pcall('XINFO', 'CONSUMERS', KEYS[1], ARGV[1])
-- No stream or no group yet: nothing to prune.
if consumers['err'] then return 0 end
local idleMs = tonumber(ARGV[2])
for _, consumer in ipairs(consumers) do
  local fields = {}
  for i = 1, #consumer, 2 do fields[consumer[i]] = consumer[i + 1] end
  if fields['pending'] == 0 and fields['idle'] >= idleMs then
    redis.call('XGROUP', 'DELCONSUMER', KEYS[1], ARGV[1], fields['name'])
    deleted = deleted + 1
  end
end
return deleted
