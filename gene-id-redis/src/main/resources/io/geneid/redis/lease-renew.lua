-- gene-id worker-id lease: renew a lease and raise its high-water mark.
-- KEYS: as lease-acquire.lua. ARGV: 1 id, 2 token, 3 ttl ms, 4 high-water mark ms (all strings)
-- Reply: {'ok', recorded mark, expiry} or {'lost', token now held ('' if none)}
local function str(n) return string.format('%.0f', n) end
local held = redis.call('HGET', KEYS[3], ARGV[1])
if held ~= ARGV[2] then return {'lost', held or ''} end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local expiry = now + tonumber(ARGV[3])
redis.call('ZADD', KEYS[1], str(expiry), ARGV[1])
local mark = ARGV[4]
local recorded = redis.call('HGET', KEYS[4], ARGV[1])
if recorded and tonumber(recorded) > tonumber(mark) then mark = recorded end
redis.call('HSET', KEYS[4], ARGV[1], mark)
return {'ok', mark, str(expiry)}
