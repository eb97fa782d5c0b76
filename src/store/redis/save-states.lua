--[[
save-states: the checkpoint saves of one tick, of any executions, in ONE script call (group
commit, docs/durable-contract.md §5 step 5). Each save is save_state (save-state.lua, included
before this) on its own share of KEYS and ARGV: fenced, size-guarded and answered on its own, so
one save refused (fenced, too large, a command error) leaves the others of the batch written.
On Redis Cluster every key of a call is in one slot: the caller batches per slot.

KEYS[1 ..]  each save's keys (save-state.lua's KEYS), one save after another
ARGV[1]     N: how many saves follow
then per save:  k (how many of KEYS are its own, in order), a (how many arguments follow),
                its a arguments (save-state.lua's ARGV)

Returns N replies, in order: save-state.lua's reply, or {'ERROR', message} when a command of
that save failed (the message is the Redis error; the save may have been partly written, as a
failing single script would leave it).
]]
local replies = {}
local k, a = 0, 2
for s = 1, tonumber(ARGV[1]) do
  local keyCount, argCount = tonumber(ARGV[a]), tonumber(ARGV[a + 1])
  a = a + 2
  local keys, args = {}, {}
  for i = 1, keyCount do keys[i] = KEYS[k + i] end
  for i = 1, argCount do args[i] = ARGV[a + i - 1] end
  k, a = k + keyCount, a + argCount
  local ok, reply = pcall(save_state, keys, args)
  if ok then
    replies[s] = reply
  else
    replies[s] = {'ERROR', type(reply) == 'table' and tostring(reply.err) or tostring(reply)}
  end
end
return replies
