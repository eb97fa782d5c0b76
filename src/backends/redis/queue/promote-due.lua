-- promote-due: moves due delayed messages (a bounded batch) to the task stream. Removing the
-- timer and adding the stream entry happen in one script, so two workers promoting at the
-- same moment never both enqueue one timer, and a crash never loses one.
--
-- KEYS[1]  the due-time index (sorted set: member = timer id, score = due epoch ms)
-- KEYS[2]  the timer payloads (hash: timer id -> payload)
-- KEYS[3]  the task stream
-- ARGV[1]  now, epoch ms (timers with a due time <= now are moved)
-- ARGV[2]  at most this many timers
--
-- Returns: { moved count, due epoch ms of the earliest remaining timer or false }.
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[2])
local moved = 0
for _, timer in ipairs(due) do
  local payload = redis.call('HGET', KEYS[2], timer)
  redis.call('ZREM', KEYS[1], timer)
  redis.call('HDEL', KEYS[2], timer)
  if payload then
    redis.call('XADD', KEYS[3], '*', 'payload', payload)
    moved = moved + 1
  end
end
local nextDue = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')[2]
return { moved, nextDue or false }
