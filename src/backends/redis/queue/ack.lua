-- ack: acknowledges delivered entries and deletes them from the stream in one step, so an
-- acknowledged message neither lingers (unbounded growth) nor is seen again by XAUTOCLAIM.
-- Idempotent: acknowledging twice, or after a dead-letter, does nothing. Takes every ack one
-- process made in one tick (the queue batches them).
--
-- KEYS[1]  the task stream
-- ARGV[1]  consumer group name
-- ARGV[2..] stream entry ids
--
-- Returns: how many of the entries were still in the stream.
redis.call('XACK', KEYS[1], ARGV[1], unpack(ARGV, 2))
return redis.call('XDEL', KEYS[1], unpack(ARGV, 2))
