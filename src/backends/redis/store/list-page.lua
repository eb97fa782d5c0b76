--[[
list-page: reads the next entries of one or more index sorted sets of one tenant (same slot),
newest first, after a keyset cursor, as one snapshot. Order: score (createdAt ms) descending,
then member (executionId) descending, which is Redis's own order within equal scores.

KEYS[1..K]  index sorted sets  <prefix>:{<tenant>}:idx:...  (member executionId, score createdAt ms)

ARGV[1]  count: entries wanted from each key
ARGV[2]  highest score to return (inclusive), or '+inf'
ARGV[3]  lowest score to return (inclusive), or '-inf'
ARGV[4]  cursor score ('' = from the newest)
ARGV[5]  cursor member: the last entry of the previous page

Returns one list per key: {member, score, member, score, ...}. When the cursor member is in
the key, reading resumes right after it (O(log n)). When it is not (another key of a merge,
or it was removed since), reading resumes at the cursor's score and every entry with exactly
that score is included in addition to `count`: the caller drops those not after the cursor
by comparing members bytewise (Lua string comparison follows the server's locale).
]]
local count = tonumber(ARGV[1])
local high, low = ARGV[2], ARGV[3]
local cursorScore, cursorMember = ARGV[4], ARGV[5]

local result = {}
for i, key in ipairs(KEYS) do
  local start = 0
  if high ~= '+inf' then start = redis.call('ZCOUNT', key, '(' .. high, '+inf') end
  local extra = 0
  if cursorScore ~= '' then
    local from
    local rank = redis.call('ZREVRANK', key, cursorMember)
    if rank and tonumber(redis.call('ZSCORE', key, cursorMember)) == tonumber(cursorScore) then
      from = rank + 1
    else
      from = redis.call('ZCOUNT', key, '(' .. cursorScore, '+inf')
      extra = redis.call('ZCOUNT', key, cursorScore, cursorScore)
    end
    if from > start then start = from end
  end
  local entries = redis.call('ZREVRANGE', key, start, start + count + extra - 1, 'WITHSCORES')
  local out = {}
  for j = 1, #entries, 2 do
    if low ~= '-inf' and tonumber(entries[j + 1]) < tonumber(low) then break end
    out[#out + 1] = entries[j]
    out[#out + 1] = entries[j + 1]
  end
  result[i] = out
end
return result
