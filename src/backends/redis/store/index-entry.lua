--[[
index-entry: a local function shared by index-entries.lua and save-state.lua (included before
each: Redis scripts cannot load one another) that brings one execution's listing-index entries
up to date, within `keys`: the caller's KEYS (KEYS[1 ..] as the including script lays them
out), or one save's share of them in save-states.lua.

  all          the tenant partition's `all` index key
  firstStatus  KEYS position of the first status index; the S status keys follow it in order
  statuses     S
  status       1..S = the execution's status (added there, removed from every other status),
               -1..-S = added there and to every index named, removed from nothing,
               0 = the execution is gone (removed from every index named)
  member       executionId; score: createdAt epoch ms (the score in every index)
  flow, hash   the flow and flow-hash index keys, or nil for none
  keys         the table the positions index (KEYS, or a save's own keys)

Returns nothing (a function, not a script).
]]
local function index_entry(keys, all, firstStatus, statuses, status, member, score, flow, hash)
  local keep = status < 0
  if keep then status = -status end
  local add = status > 0
  local function put(key)
    if add then redis.call('ZADD', key, score, member) else redis.call('ZREM', key, member) end
  end
  put(all)
  for s = 1, statuses do
    if s == status then redis.call('ZADD', keys[firstStatus + s - 1], score, member)
    elseif not keep then redis.call('ZREM', keys[firstStatus + s - 1], member) end
  end
  if flow then put(flow) end
  if hash then put(hash) end
end
