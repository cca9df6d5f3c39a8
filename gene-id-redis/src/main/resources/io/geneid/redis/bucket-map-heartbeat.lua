-- gene-id bucket map: record a router's heartbeat in KEYS[1] (the routers' hash) at this server's own TIME, so
-- heartbeats are written and judged by one clock, never a router host's. ARGV: router id, map version (decimal),
-- the router instance ('' or absent: a writer that gives none).
-- A field is '<version> <atMillis> <instance or -> [<other version> <other atMillis> <other instance or ->]': when the
-- field's last beat came from another instance, or carried a higher version (one router never goes back), that beat
-- is kept as the other writer's, a sign of two routers under one id.
-- Reply: the time recorded, epoch milliseconds as a decimal string.
if redis.replicate_commands then redis.replicate_commands() end -- Redis < 5: TIME before a write
local t = redis.call('TIME')
local now = string.format('%.0f', tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000))
local instance = ARGV[3]
if instance == nil or instance == '' then instance = '-' end
local value = ARGV[2] .. ' ' .. now .. ' ' .. instance
local old = redis.call('HGET', KEYS[1], ARGV[1])
if old then
  local parts = {}
  for p in string.gmatch(old, '%S+') do parts[#parts + 1] = p end
  local oldInstance = parts[3] or '-'
  if oldInstance ~= instance or tonumber(parts[1]) > tonumber(ARGV[2]) then
    value = value .. ' ' .. parts[1] .. ' ' .. parts[2] .. ' ' .. oldInstance
  elseif parts[6] then
    value = value .. ' ' .. parts[4] .. ' ' .. parts[5] .. ' ' .. parts[6]
  end
end
redis.call('HSET', KEYS[1], ARGV[1], value)
return now
