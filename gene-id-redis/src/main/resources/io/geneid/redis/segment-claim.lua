-- gene-id segment range: claim ARGV[1] values of one business tag's counter (KEYS[1], a plain integer string, the
-- same key a bare INCRBY used). One key, so one cluster slot.
-- Reply: {'evicting', policy} without claiming when the server runs a maxmemory-policy that may evict the counter
--         (allkeys-*: switched at run time, the store refused it at build), else
--        {the counter after the claim (a decimal string: Lua numbers would lose 63-bit precision), the server's
--         identity (run_id:master_replid), the number of replicas connected to it now}
-- The client then waits (WAIT) until every replica the deployment could promote has the claim before it hands
-- the range out (RedisSegmentStore).
local policy = string.match(redis.call('INFO', 'memory'), 'maxmemory_policy:([%w%-]+)') or 'unknown'
if policy == 'unknown' or string.sub(policy, 1, 8) == 'allkeys-' then return {'evicting', policy} end
redis.call('INCRBY', KEYS[1], ARGV[1])
local runid = string.match(redis.call('INFO', 'server'), 'run_id:(%x+)') or 'unknown'
local info = redis.call('INFO', 'replication')
local replid = string.match(info, 'master_replid:(%x+)') or 'unknown'
return {redis.call('GET', KEYS[1]), runid .. ':' .. replid, string.match(info, 'connected_slaves:(%d+)') or '0'}
