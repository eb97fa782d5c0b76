-- renew: keeps a long-running message invisible to XAUTOCLAIM without counting a delivery,
-- but only while the pending entry is still owned by the caller. Checking the owner and
-- resetting the idle time in one script is what guarantees a live worker never steals a
-- message that was already reclaimed by another consumer.
--
-- KEYS[1]  the task stream
-- ARGV[1]  consumer group name
-- ARGV[2]  consumer name (the caller)
-- ARGV[3]  stream entry id
--
-- Returns: 1 when renewed; 0 when the entry is no longer pending, is owned by another
-- consumer, or was deleted from the stream.
local pending = redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[3], ARGV[3], 1)
local entry = pending[1]
if entry == nil or entry[2] ~= ARGV[2] then
  return 0
end
-- XCLAIM with min-idle 0 and JUSTID resets the idle time and leaves the delivery count alone.
local claimed = redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], 0, ARGV[3], 'JUSTID')
return #claimed
