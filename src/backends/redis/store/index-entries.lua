--[[
index-entries: brings the index entries of some executions of ONE tenant up to date, in the
order given, atomically. One call carries every update a process made in one tick: a worker
finishing several executions at once sends one command, not one per execution.

KEYS[1]          `all` index               <prefix>:{<tenant>}:idx:all
KEYS[2 .. 1+S]   one index per status       <prefix>:{<tenant>}:idx:status:<status>
KEYS[2+S ..]     flow and flow-hash indexes the entries name  <prefix>:{<tenant>}:idx:...

ARGV[1]  S: how many status keys follow KEYS[1]
ARGV[2 ..] one group of five per entry:
         executionId (the member),
         createdAt epoch ms (the score in every index),
         status: 1..S = the entry's status key (it is added there and removed from every
                 other status), -1..-S = added there without removing it from the others (a
                 background repair), 0 = the execution is gone (removed from every index named),
         KEYS index of its flow index, or 0 for none,
         KEYS index of its flow-hash index, or 0 for none

Returns the number of entries applied. (`index_entry`: index-entry.lua, included before this.)
]]
local statuses = tonumber(ARGV[1])
local count = 0
for i = 2, #ARGV, 5 do
  local flow, hash = tonumber(ARGV[i + 3]), tonumber(ARGV[i + 4])
  index_entry(KEYS, KEYS[1], 2, statuses, tonumber(ARGV[i + 2]), ARGV[i], ARGV[i + 1],
    flow > 0 and KEYS[flow] or nil, hash > 0 and KEYS[hash] or nil)
  count = count + 1
end
return count
