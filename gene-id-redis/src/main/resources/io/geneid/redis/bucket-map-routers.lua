-- gene-id bucket map: this server's TIME and every heartbeat of KEYS[1] (the routers' hash), read at one instant on
-- the node that holds the map, so a mover judges liveness by the clock the heartbeats were written with.
-- Reply: {now in epoch milliseconds as a decimal string, router id, '<version> <atMillis>', router id, ...}
local t = redis.call('TIME')
local reply = {string.format('%.0f', tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000))}
local all = redis.call('HGETALL', KEYS[1])
for i = 1, #all do
  reply[#reply + 1] = all[i]
end
return reply
