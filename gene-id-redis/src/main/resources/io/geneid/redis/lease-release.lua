-- gene-id worker-id lease: give a worker id back, recording the exact mark its holder reached.
-- KEYS: 1 meta, 2 expiry index, 3 the worker id's record. ARGV: 1 worker id, 2 token, 3 mark ms
-- The id becomes the most recently used free id (it is free from now). Reply: 'ok' or 'lost'.
local g = generation()
if not g then return 'lost' end
local w = redis.call('HMGET', KEYS[3], 'token', 'gen')
if w[1] ~= ARGV[2] or w[2] ~= g.gen then return 'lost' end
redis.call('HDEL', KEYS[3], 'owner', 'token')
redis.call('HSET', KEYS[3], 'mark', ARGV[3], 'expiry', str(now))
redis.call('ZADD', INDEX, str(now), ARGV[1])
return 'ok'
