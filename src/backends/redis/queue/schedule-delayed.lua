-- schedule-delayed: records a delayed message under its timer id: the payload in a hash and
-- the due time in a sorted set. Idempotent by timer id: scheduling an id that is still
-- pending changes nothing (a timer scheduled twice fires once).
--
-- KEYS[1]  the due-time index (sorted set: member = timer id, score = due epoch ms)
-- KEYS[2]  the timer payloads (hash: timer id -> payload)
-- ARGV[1]  timer id
-- ARGV[2]  due time, epoch ms
-- ARGV[3]  payload (the encoded task message)
--
-- Returns: 1 when scheduled, 0 when that timer id was already pending.
if redis.call('HSETNX', KEYS[2], ARGV[1], ARGV[3]) == 0 then
  return 0
end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
return 1
