-- gene-id worker-id lease: renew a lease and raise its high-water mark.
-- KEYS: 1 meta, 2 expiry index, 3 the worker id's record. ARGV: 1 worker id, 2 token, 3 ttl ms, 4 mark ms
-- A renewal succeeds only when the record holds this token AND belongs to the pool's current generation: after a
-- restart or failover even a matching token is refused (the record may be older than what happened since).
-- Reply: {'ok', recorded mark, expiry, server (run_id:master_replid), replicas connected}
-- or {'lost', reason}: 'generation' (the store restarted, failed over or lost
-- the pool's meta), '' (no record: released, or the store lost it) or the token the record holds now.
local g = generation()
if not g then return {'lost', 'generation'} end
local w = redis.call('HMGET', KEYS[3], 'token', 'gen', 'mark')
if w[1] ~= ARGV[2] then return {'lost', w[1] or ''} end
if w[2] ~= g.gen then return {'lost', 'generation'} end
local expiry = now + tonumber(ARGV[3])
local mark = tonumber(ARGV[4])
if w[3] and tonumber(w[3]) > mark then mark = tonumber(w[3]) end
redis.call('HSET', KEYS[3], 'expiry', str(expiry), 'mark', str(mark))
redis.call('ZADD', INDEX, str(expiry), ARGV[1])
return {'ok', str(mark), str(expiry), server, replicas}
