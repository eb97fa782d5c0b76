-- purge-dead-letters: removes every dead letter and reports how many there were, in one step
-- (a dead letter written concurrently is either counted and removed, or kept).
--
-- KEYS[1]  the dead-letter stream
--
-- Returns: the number of dead letters removed.
local count = redis.call('XLEN', KEYS[1])
redis.call('UNLINK', KEYS[1])
return count
