-- replay-dead-letter: puts a dead letter's payload back on the task stream as a new message
-- and removes the dead letter, atomically (a replay never duplicates or loses it).
--
-- KEYS[1]  the dead-letter stream
-- KEYS[2]  the task stream
-- ARGV[1]  dead letter id (a stream id of KEYS[1])
--
-- Returns: the new task stream entry id, or false when there is no such dead letter.
local found = redis.call('XRANGE', KEYS[1], ARGV[1], ARGV[1])
local entry = found[1]
if entry == nil then
  return false
end
local fields = entry[2]
local payload = ''
for i = 1, #fields, 2 do
  if fields[i] == 'payload' then payload = fields[i + 1] end
end
local id = redis.call('XADD', KEYS[2], '*', 'payload', payload)
redis.call('XDEL', KEYS[1], ARGV[1])
return id
