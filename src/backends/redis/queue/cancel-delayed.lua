-- cancel-delayed: removes a pending delayed message (its due-time entry and its payload).
--
-- KEYS[1]  the due-time index (sorted set)
-- KEYS[2]  the timer payloads (hash)
-- ARGV[1]  timer id
--
-- Returns: 1 when the timer was pending, 0 when it had fired, was cancelled or never existed.
local removed = redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
return removed
