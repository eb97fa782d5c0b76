-- claim-expired: moves pending entries whose visibility timeout expired (idle >= min idle) to
-- the caller and returns them with their delivery counts. XAUTOCLAIM increments the count;
-- reading it back with XPENDING inside the same script means no other consumer can claim the
-- entry in between, and costs no extra round trip.
--
-- KEYS[1]  the task stream
-- ARGV[1]  consumer group name
-- ARGV[2]  consumer name (the caller)
-- ARGV[3]  min idle time, ms (the visibility timeout)
-- ARGV[4]  at most this many entries
-- ARGV[5]  scan cursor (stream id) to continue from; '0-0' scans from the start
--
-- Returns: { next cursor, { { id, delivery count, { field, value, ... } }, ... } }.
-- Entries deleted from the stream meanwhile are dropped by XAUTOCLAIM itself (Redis >= 7
-- removes them from the pending list and reports them separately); they are not returned.
local want = tonumber(ARGV[4])
local cursor = ARGV[5]
-- A scan that started at the beginning has covered everything once it wraps to 0-0.
local wrapped = cursor == '0-0'
local out = {}
-- Each XAUTOCLAIM inspects at most 10 x COUNT pending entries; a few rounds let a scan get
-- past a long run of renewed (not yet expired) entries while staying bounded.
for _ = 1, 4 do
  local reply = redis.call('XAUTOCLAIM', KEYS[1], ARGV[1], ARGV[2], ARGV[3], cursor, 'COUNT', want - #out)
  cursor = reply[1]
  for _, entry in ipairs(reply[2]) do
    -- Redis 6.2 returned deleted entries as nil fields; skip them the same way.
    if entry[2] then
      local info = redis.call('XPENDING', KEYS[1], ARGV[1], entry[1], entry[1], 1)[1]
      if info then
        out[#out + 1] = { entry[1], info[4], entry[2] }
      end
    end
  end
  if #out >= want then break end
  if cursor == '0-0' then
    if wrapped then break end
    wrapped = true
  end
end
return { cursor, out }
