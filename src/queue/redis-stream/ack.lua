-- ack: acknowledges a delivered entry and deletes it from the stream in one step, so an
-- acknowledged message neither lingers (unbounded growth) nor is seen again by XAUTOCLAIM.
-- Idempotent: acknowledging twice, or after a dead-letter, does nothing.
--
-- KEYS[1]  the task stream
-- ARGV[1]  consumer group name
-- ARGV[2]  stream entry id
--
-- Returns: 1 if the entry was still in the stream, 0 otherwise.
redis.call('XACK', KEYS[1], ARGV[1], ARGV[2])
return redis.call('XDEL', KEYS[1], ARGV[2])
