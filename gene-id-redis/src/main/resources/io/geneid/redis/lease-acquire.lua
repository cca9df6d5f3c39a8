-- gene-id worker-id lease: lease a free worker id of a pool. The work per call is bounded by constants, never by
-- the size of the pool (worker ids may be 28 bits wide): never-used ids come from meta.next, reused ids from the
-- least recently used end of the index, and a lost index is rebuilt a chunk per call from the records of the ids
-- granted so far.
-- KEYS: 1 meta, 2 expiry index (see lease-common.lua)
-- ARGV: 1 record key prefix (<prefix>:lease:{<space>}:w:), 2 owner, 3 ttl ms, 4 lowest id, 5 highest id,
--       6 borrow slack ms (how far ahead of its clock a holder may issue), 7 clock-skew margin ms,
--       8 token (random 64 bits, decimal), 9 generation id to use if a new generation starts
-- Reply: {'ok', id, token, previous mark, expiry, now, server (run_id:master_replid), replicas connected,
--         maxmemory-policy (the client vouches for the pool's history only if it cannot evict these keys)}
--     or {'busy', now, unknown-history ids free at (0: none waiting), generation born, then up to 16 triples
--         id, owner (or 'unknown history'), free at}
local base, owner, ttl = ARGV[1], ARGV[2], tonumber(ARGV[3])
local lo, hi = tonumber(ARGV[4]), tonumber(ARGV[5])
local slack, margin = tonumber(ARGV[6]), tonumber(ARGV[7])
local token, newGen = ARGV[8], ARGV[9]
-- a worker id of unknown history may still be in use by a holder that has not noticed yet: that holder stops within
-- one TTL (its renewal fails) and issued at most 'slack' ahead of its clock, which may differ from ours by 'margin'
local wait = ttl + slack + margin
local PROBES, CANDIDATES, REBUILD, SHOWN = 256, 64, 1000, 16

local g, m = generation()
if not g then
  -- a new generation: the server restarted (perhaps from older files), failed over, or the meta hash was lost.
  -- Records written before now have an unknown history; ids that have none wait the same.
  local known = m[1] and true or false
  g = {born = now, gen = newGen, next = known and tonumber(m[4] or '0') or 0,
    count = known and tonumber(m[5] or '0') or 0, scan = nil}
  redis.call('HSET', META, 'born', str(now), 'gen', newGen, 'runid', runid, 'server', server)
end
local unknownAt = g.born + wait
local unknownFree = nil

local function saveMeta()
  redis.call('HSET', META, 'next', str(g.next), 'count', str(g.count))
  if g.scan then redis.call('HSET', META, 'scan', str(g.scan)) else redis.call('HDEL', META, 'scan') end
end

local function sawUnknown(at)
  if at > now and (not unknownFree or at < unknownFree) then unknownFree = at end
end

-- What a worker id's record says: nil if it has none, else {freeAt, prev}: when it may be granted and the previous
-- mark a grant then carries.
local function look(id)
  local key = base .. id
  local r = redis.call('HMGET', key, 'owner', 'token', 'mark', 'expiry', 'gen', 'unknownSince')
  if not (r[1] or r[2] or r[3] or r[4] or r[5] or r[6]) then return nil end
  local mark = tonumber(r[3] or '0') or 0
  local since = nil
  if r[5] ~= g.gen then
    since = g.born -- written before the generation started: whoever held it may still issue until it notices
  elseif r[6] then
    since = tonumber(r[6]) -- its record was lost once
  elseif not r[3] or not r[4] then
    since = now -- part of the record is missing
    redis.call('HSET', key, 'unknownSince', str(now))
  end
  if since then
    local freeAt = math.max(since + wait, tonumber(r[4] or '0') or 0)
    sawUnknown(freeAt)
    return {freeAt = freeAt, prev = math.max(mark, freeAt, now + slack)}
  end
  if r[2] then
    -- leased, perhaps expired: its holder may have issued up to its mark, or (borrowing) up to its clock + slack
    return {freeAt = tonumber(r[4]), prev = math.max(mark, now + slack)}
  end
  return {freeAt = tonumber(r[4]), prev = mark} -- released with the exact mark its holder reached
end

local function grant(id, prev)
  local key = base .. id
  local expiry = now + ttl
  saveMeta()
  redis.call('DEL', key)
  redis.call('HSET', key, 'owner', owner, 'token', token, 'mark', str(prev), 'expiry', str(expiry), 'gen', g.gen)
  redis.call('ZADD', INDEX, str(expiry), id)
  local policy = string.match(redis.call('INFO', 'memory'), 'maxmemory_policy:([%w%-]+)') or 'unknown'
  return {'ok', id, token, str(prev), str(expiry), str(now), server, replicas, policy}
end

local function forget(id)
  -- granted once, and nothing about it is left: its history is unknown from now on
  redis.call('HSET', base .. id, 'unknownSince', str(now), 'gen', g.gen)
  redis.call('ZADD', INDEX, str(now + wait), id)
  sawUnknown(now + wait)
end

-- 1. The index lost entries (eviction, DEL): rebuild it from the records of the ids granted so far, a chunk per call.
if not g.scan and redis.call('ZCARD', INDEX) < g.count then g.scan = lo end
if g.scan then
  local from = math.max(g.scan, lo)
  local last = math.min(g.next - 1, hi)
  local stop = math.min(from + REBUILD - 1, last)
  for n = from, stop do
    local id = str(n)
    if not redis.call('ZSCORE', INDEX, id) then
      local r = look(id)
      if r then redis.call('ZADD', INDEX, str(r.freeAt), id) else forget(id) end
    end
  end
  if stop >= last then
    g.scan = nil
    g.count = redis.call('ZCARD', INDEX)
  else
    g.scan = stop + 1
  end
end

-- 2. A worker id never granted in this generation. Its record, if it has one (the meta hash was lost), tells its
-- history; without one it is free once every holder from before the generation must have stopped.
local n = math.max(g.next, lo)
local probes = 0
while n <= hi and probes < PROBES do
  local id = str(n)
  local r = look(id)
  if not r then
    if now >= unknownAt then
      g.next = n + 1
      g.count = g.count + 1
      return grant(id, unknownAt)
    end
    sawUnknown(unknownAt)
    break
  end
  redis.call('ZADD', INDEX, str(r.freeAt), id)
  g.count = g.count + 1
  n = n + 1
  g.next = n
  probes = probes + 1
end

-- 3. The least recently used worker id whose lease ended, looked for in a bounded window of the index.
local candidates = redis.call('ZRANGEBYSCORE', INDEX, '-inf', str(now), 'LIMIT', 0, CANDIDATES)
for _, id in ipairs(candidates) do
  local k = tonumber(id)
  if k and k >= lo and k <= hi then
    local r = look(id)
    if not r then
      forget(id)
    elseif r.freeAt <= now then
      return grant(id, r.prev)
    else
      redis.call('ZADD', INDEX, str(r.freeAt), id) -- the index was behind its record
    end
  end
end

-- 4. Busy: say when something frees up and who holds the first ids to do so (at most SHOWN of them).
saveMeta()
local reply = {'busy', str(now), str(unknownFree or 0), str(g.born)}
local next = redis.call('ZRANGEBYSCORE', INDEX, '(' .. str(now), '+inf', 'WITHSCORES', 'LIMIT', 0, SHOWN)
for i = 1, #next, 2 do
  local k = tonumber(next[i])
  if k and k >= lo and k <= hi then
    local w = redis.call('HMGET', base .. next[i], 'owner', 'gen', 'unknownSince')
    local who = w[1] or 'nobody'
    if w[2] ~= g.gen or w[3] then who = 'unknown history' end
    reply[#reply + 1] = next[i]
    reply[#reply + 1] = who
    reply[#reply + 1] = next[i + 1]
  end
end
return reply
