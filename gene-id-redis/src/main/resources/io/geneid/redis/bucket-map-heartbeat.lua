-- gene-id bucket map: record a router's heartbeat in KEYS[1] (the routers' hash) at this server's own TIME, so
-- heartbeats are written and judged by one clock, never a router host's. ARGV: router id, map version (decimal).
-- Reply: the time recorded, epoch milliseconds as a decimal string.
if redis.replicate_commands then redis.replicate_commands() end -- Redis < 5: TIME before a write
local t = redis.call('TIME')
local now = string.format('%.0f', tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000))
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2] .. ' ' .. now)
return now
