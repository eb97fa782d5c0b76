-- dead-letter: writes a dead letter and acknowledges + deletes the original, atomically, so a
-- message is never both dead-lettered and redelivered, nor dropped without its dead letter.
-- Only an entry that is still pending is dead-lettered: a second call (or a call after the
-- message was acknowledged elsewhere) writes nothing.
--
-- KEYS[1]  the task stream
-- KEYS[2]  the dead-letter stream
-- ARGV[1]  consumer group name
-- ARGV[2]  stream entry id of the original message
-- ARGV[3]  dead-letter stream cap (entries; exact MAXLEN, the oldest are trimmed)
-- ARGV[4..] field, value pairs of the dead letter (reason, lastError?, deliveryCount,
--           payload, executionId?, at)
--
-- Returns: the dead letter's id, or false when the original was no longer pending.
if redis.call('XACK', KEYS[1], ARGV[1], ARGV[2]) == 0 then
  return false
end
local id = redis.call('XADD', KEYS[2], 'MAXLEN', ARGV[3], '*', unpack(ARGV, 4))
redis.call('XDEL', KEYS[1], ARGV[2])
return id
