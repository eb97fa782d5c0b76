--[[
run-batch: a local function (included before a batch script: save-states.lua,
claim-executions.lua) that runs one per-execution function over the items of one call, each on
its own share of KEYS[1 ..] and ARGV[2 ..] as its own KEYS and ARGV. One item failing (a command
error raised in it) answers that item alone, {'ERROR', message}; the items beside it run on.

ARGV[1]  N: how many items follow
then per item:  k (how many of KEYS are its own, in order), a (how many arguments follow),
                its a arguments

Returns N replies, in order: each item's own reply, or {'ERROR', message} when a command of
that item failed (the item may have been partly written, as a failing single script would be).
]]
local function run_batch(each)
  local replies = {}
  local k, a = 0, 2
  for s = 1, tonumber(ARGV[1]) do
    local keyCount, argCount = tonumber(ARGV[a]), tonumber(ARGV[a + 1])
    a = a + 2
    local keys, args = {}, {}
    for i = 1, keyCount do keys[i] = KEYS[k + i] end
    for i = 1, argCount do args[i] = ARGV[a + i - 1] end
    k, a = k + keyCount, a + argCount
    local ok, reply = pcall(each, keys, args)
    if ok then
      replies[s] = reply
    else
      replies[s] = {'ERROR', type(reply) == 'table' and tostring(reply.err) or tostring(reply)}
    end
  end
  return replies
end
