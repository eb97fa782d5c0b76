-- add-tasks: appends several messages to the task stream as one command (the enqueues one
-- process made in one tick), in order.
--
-- KEYS[1]  the task stream
-- ARGV[1..] encoded task messages (each becomes an entry with one field, `payload`)
--
-- Returns: the new entries' ids, in the order of ARGV.
local ids = {}
for i = 1, #ARGV do
  ids[i] = redis.call('XADD', KEYS[1], '*', 'payload', ARGV[i])
end
return ids
