--[[
save-state: a local function (included before save-states.lua, which calls it once per save
of a batch, each with its own KEYS and ARGV: run-batch.lua) that writes one execution checkpoint: the header (state text without the
`$NODE` results, plus the summary `list` reads) and the changed `$NODE` results. Fencing is
checked first, then the size limit over everything stored after this save; only then is
anything written. Lease fields (leaseOwner, leaseGen, leaseExpiresAt) are never touched; the
cancel mark (cancelRequested) only goes when the saved status is terminal (a spent request).

KEYS[1]  header hash   <prefix>:{<tenant>:<executionId>}:h
KEYS[2]  results hash  <prefix>:{<tenant>:<executionId>}:nodes  (node id -> encoded result)
On a single Redis (never a cluster: other slots) the listing indexes follow in the same script:
KEYS[3]  the expiry index; KEYS[4] the tenant partition's `all` index; KEYS[5 .. 4+S] its status
indexes; then its flow and flow-hash indexes when the execution has them.

ARGV[1]  fence: lease generation the writer holds; '' = unfenced; 'create' = create only
         (unfenced, and only if nothing is stored)
ARGV[2]  '1' = full rewrite (stored results not in this save are deleted), '0' = incremental
ARGV[3]  header text (state codec)
ARGV[4]  summary text (state codec)
ARGV[5]  status
ARGV[6]  maxStateBytes (bytes): header + every stored result after this save
ARGV[7]  expiry, epoch ms: every key of the execution expires then; '' = never (keys persisted)
ARGV[8]  R = how many node ids to delete follow
ARGV[9]  X = how many index arguments follow: 0 (the caller updates the indexes itself) or 7:
         S, the status's position 1..S, executionId, createdAt (the score), the KEYS position
         of the flow index and of the flow-hash index (0: none), the expiry index member
ARGV[10+X .. 9+X+R]  node keys to delete (results removed from `$NODE`)
ARGV[10+X+R ..]      pairs: node key, encoded result  (node keys: node ids, escaped by node-key.ts)

Accepted, the save brings the indexes (X = 7) up to date as the Redis store's ExecutionIndex
would after it — unless the status is unchanged, not terminal and given no expiry — then writes.

Returns
  {'OK', previousStatus}          written; previousStatus '' when the execution is new
  {'FENCED', storedGeneration}    nothing written; storedGeneration '' when nothing is stored
  {'MISSING'}                     incremental save but nothing stored: nothing written
  {'EXISTS'}                      create only, and the execution is stored: nothing written
  {'TOO_LARGE', totalBytes, id, bytes, id, bytes, ...}
                                  nothing written; the size of every result after the save
]]
local function terminal(status)
  return status == 'completed' or status == 'error' or status == 'cancelled'
end

-- KEYS and ARGV: this save's own (the parameters shadow the script's globals).
local function save_state(KEYS, ARGV)
  local header, nodes = KEYS[1], KEYS[2]

  -- One read of everything the checks need (a save's Lua cost is mostly its redis.call count).
  local stored = redis.call('HMGET', header, 'status', 'leaseGen', 'nodeBytes', 'expiresAt')
  local previous = stored[1]
  local fence = ARGV[1]
  if fence == 'create' then
    if previous then return {'EXISTS'} end
  elseif fence ~= '' then
    if not previous then return {'FENCED', ''} end
    local generation = stored[2] or '0'
    if tonumber(generation) ~= tonumber(fence) then return {'FENCED', generation} end
  end

  local full = ARGV[2] == '1'
  if not full and not previous then return {'MISSING'} end

  local indexed = tonumber(ARGV[9])
  local removedFrom = 10 + indexed
  local pairsFrom = removedFrom + tonumber(ARGV[8])
  local headerBytes = #ARGV[3]

  -- Running total of result sizes, kept in the header so a save costs O(changed results).
  local nodeBytes = 0
  if not full then
    nodeBytes = tonumber(stored[3] or '0')
    for i = removedFrom, pairsFrom - 1 do
      nodeBytes = nodeBytes - redis.call('HSTRLEN', nodes, ARGV[i])
    end
    for i = pairsFrom, #ARGV, 2 do
      nodeBytes = nodeBytes - redis.call('HSTRLEN', nodes, ARGV[i])
    end
  end
  for i = pairsFrom + 1, #ARGV, 2 do nodeBytes = nodeBytes + #ARGV[i] end

  if headerBytes + nodeBytes > tonumber(ARGV[6]) then
    -- The failure path may cost O(all results): report every size, the caller names the largest.
    local sizes = {}
    if not full then
      for _, id in ipairs(redis.call('HKEYS', nodes)) do sizes[id] = redis.call('HSTRLEN', nodes, id) end
      for i = removedFrom, pairsFrom - 1 do sizes[ARGV[i]] = nil end
    end
    for i = pairsFrom, #ARGV, 2 do sizes[ARGV[i]] = #ARGV[i + 1] end
    local reply = {'TOO_LARGE', headerBytes + nodeBytes}
    for id, bytes in pairs(sizes) do
      reply[#reply + 1] = id
      reply[#reply + 1] = bytes
    end
    return reply
  end

  -- The indexes before the record: should one of their writes fail (a key of the wrong type),
  -- the record is not written either and the caller's retry does both.
  if indexed > 0 then
    local status, member = ARGV[5], ARGV[12]
    if previous ~= status or terminal(status) or ARGV[7] ~= '' then
      local flow, hash = tonumber(ARGV[14]), tonumber(ARGV[15])
      index_entry(KEYS, KEYS[4], 5, tonumber(ARGV[10]), tonumber(ARGV[11]), member, ARGV[13],
        flow > 0 and KEYS[flow] or nil, hash > 0 and KEYS[hash] or nil)
    end
    if ARGV[7] ~= '' then redis.call('ZADD', KEYS[3], ARGV[7], ARGV[16])
    elseif terminal(previous) then redis.call('ZREM', KEYS[3], ARGV[16]) end
  end

  if full then redis.call('DEL', nodes) end
  for i = removedFrom, pairsFrom - 1 do redis.call('HDEL', nodes, ARGV[i]) end
  -- Results in batches of HSET: one call for a usual save, bounded unpack() for a big rewrite.
  for i = pairsFrom, #ARGV, 200 do
    redis.call('HSET', nodes, unpack(ARGV, i, math.min(i + 199, #ARGV)))
  end

  if terminal(ARGV[5]) then
    -- A cancel request is for the run that just ended: spent (request-cancel.lua).
    redis.call('HDEL', header, 'cancelRequested')
  end
  if ARGV[7] ~= '' then
    redis.call('HSET', header, 'header', ARGV[3], 'summary', ARGV[4], 'status', ARGV[5],
      'headerBytes', headerBytes, 'nodeBytes', nodeBytes, 'expiresAt', ARGV[7])
    redis.call('PEXPIREAT', header, ARGV[7])
    redis.call('PEXPIREAT', nodes, ARGV[7])
  else
    redis.call('HSET', header, 'header', ARGV[3], 'summary', ARGV[4], 'status', ARGV[5],
      'headerBytes', headerBytes, 'nodeBytes', nodeBytes)
    -- `expiresAt` is stored exactly when this script gave the keys a TTL: without it there is
    -- nothing to undo, which spares every running checkpoint an HDEL and two PERSISTs.
    if stored[4] then
      redis.call('HDEL', header, 'expiresAt')
      redis.call('PERSIST', header)
      redis.call('PERSIST', nodes)
    end
  end
  return {'OK', previous or ''}
end
