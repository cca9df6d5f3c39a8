-- gene-id worker-id lease: acquire the least recently used free worker id of a pool.
-- KEYS: 1 expiries (zset id -> expiry ms), 2 holders (hash id -> owner), 3 tokens (hash id -> token),
--       4 marks (hash id -> high-water mark ms), 5 meta (hash: born, seq)
-- ARGV: 1 owner, 2 ttl ms, 3 lowest id, 4 highest id, 5 unknown-history slack ms
-- Every number crosses the Lua boundary as a string; times come from the Redis server.
-- Reply: {'ok', id, token, previous mark, expiry, now}
--     or {'busy', pool size, unknown count, unknown usable at, id, owner, expiry, id, owner, expiry, ...}
local function str(n) return string.format('%.0f', n) end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local owner, ttl = ARGV[1], tonumber(ARGV[2])
local lo, hi, slack = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])

-- 'born': when this pool's records started. A store that lost its data (restart without persistence, eviction,
-- flush) starts a new one, and worker ids without a record then have an unknown last holder, who may still be
-- issuing until it fails to renew: they wait until born + ttl + slack, and that instant is their mark.
local born = redis.call('HGET', KEYS[5], 'born')
if born then
  born = tonumber(born)
else
  born = now
  redis.call('HSET', KEYS[5], 'born', str(now))
end
local unknownUsableAt = born + ttl + slack

local function grant(id, previous)
  local token = str(redis.call('HINCRBY', KEYS[5], 'seq', 1))
  local expiry = now + ttl
  redis.call('ZADD', KEYS[1], str(expiry), id)
  redis.call('HSET', KEYS[2], id, owner)
  redis.call('HSET', KEYS[3], id, token)
  redis.call('HSET', KEYS[4], id, previous)
  return {'ok', id, token, previous, str(expiry), str(now)}
end

local scores = {}
local entries = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES') -- ascending expiry: least recently used first
for i = 1, #entries, 2 do scores[entries[i]] = tonumber(entries[i + 1]) end

-- 1. worker ids never used since the pool's records started: least recently used of all
local unknown = 0
for n = lo, hi do
  local id = str(n)
  if not scores[id] then
    if now >= unknownUsableAt then return grant(id, str(unknownUsableAt)) end
    unknown = unknown + 1
  end
end

-- 2. expired or released worker ids, the least recently used first
for i = 1, #entries, 2 do
  local id, n = entries[i], tonumber(entries[i])
  if n >= lo and n <= hi and scores[id] < now then
    local mark = redis.call('HGET', KEYS[4], id)
    -- a record without a mark lost part of its data: its holder issued nothing after its expiry (now)
    return grant(id, mark or str(now))
  end
end

local reply = {'busy', str(hi - lo + 1), str(unknown), str(unknownUsableAt)}
for i = 1, #entries, 2 do
  local id, n = entries[i], tonumber(entries[i])
  if n >= lo and n <= hi then
    reply[#reply + 1] = id
    reply[#reply + 1] = redis.call('HGET', KEYS[2], id) or '?'
    reply[#reply + 1] = str(scores[id])
  end
end
return reply
