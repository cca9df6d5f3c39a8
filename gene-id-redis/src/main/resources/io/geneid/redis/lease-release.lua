-- gene-id worker-id lease: give a worker id back, recording the mark its holder reached.
-- KEYS: as lease-acquire.lua. ARGV: 1 id, 2 token, 3 high-water mark ms (all strings)
-- The id becomes the most recently used free id (its score is now). Reply: 'ok' or 'lost'.
local held = redis.call('HGET', KEYS[3], ARGV[1])
if held ~= ARGV[2] then return 'lost' end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[1], string.format('%.0f', now), ARGV[1])
redis.call('HSET', KEYS[4], ARGV[1], ARGV[3])
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
return 'ok'
