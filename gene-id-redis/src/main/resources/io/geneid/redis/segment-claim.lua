-- gene-id segment range: claim ARGV[1] values of one business tag's counter (KEYS[1], a plain integer string, the
-- same key a bare INCRBY used). KEYS[2] is the counter's guard, in the same cluster slot: the random generation
-- (ARGV[3] when it is created) under which the counter has counted since it was created. A store passes the
-- generation it claimed under before (ARGV[2], '' if none): a guard that is missing or another means the counter was
-- lost (a Redis restarted without its data, FLUSHALL, an operator's DEL) and counts again from values already handed
-- out, which no restart without data can hide, since the generation was drawn at random by a claim before; a guard
-- without its counter (the counter deleted alone) is a loss too, whoever claims. The guard
-- then becomes a tombstone ('lost:...') that refuses every store's claims until an operator acts.
-- A store also passes the end of the last range it was handed for the tag (ARGV[4], '' if none): a counter below it
-- went back with its guard intact (an older copy restored, AOF everysec losing its last second, a failover to a
-- replica that missed claims) and would hand that store's ranges out again; that is a loss too, with the same
-- tombstone. Only the stores that were handed ranges above the restored counter can see it: a store that never was
-- (a process started after the rollback, one whose last range is below it) would claim on, and once such stores
-- claimed past the end of every store that was, no claim would find the counter below an end: the identity check
-- below closes that when the rollback came with a restart (as every restore of files and every lost AOF second does).
-- KEYS[3], next to the guard in its slot, records the identity of the server of the last claim
-- ('<run_id>:<master_replid>'; a key of its own, so that processes of earlier versions, which compare the guard with
-- their generation, can share the tag during a rolling upgrade). A
-- claim on a server of another identity (a restart, a failover, an older copy started) may find a counter that went
-- back with its guard, which the end check above sees only in part (other stores may claim past every end first:
-- then the repeats would be silent). Unless the store vouches for the server's persistence (ARGV[5] = '1': every
-- master it was built on runs appendonly yes with appendfsync always, so a restart loses no acknowledged claim) or
-- the server is a replica promoted from the server of the last claim (its master_replid2 is that server's
-- master_replid: it had every claim, which the store handed out only once the replicas acknowledged it), the claim
-- lays the tombstone too; else it records the new identity and goes on.
-- Reply: {'evicting', policy} without claiming when the server runs a maxmemory-policy that may evict the counter
--         (allkeys-*: switched at run time, the store refused it at build);
--        {'lost', guard} without claiming when the counter was lost (see above);
--        else {the counter after the claim (a decimal string: Lua numbers would lose 63-bit precision), the server's
--         identity (run_id:master_replid), the number of replicas connected to it now, the generation}
-- The client then waits (WAIT) until every replica the deployment could promote has the claim before it hands
-- the range out (RedisSegmentStore).
local policy = string.match(redis.call('INFO', 'memory'), 'maxmemory_policy:([%w%-]+)') or 'unknown'
if policy == 'unknown' or string.sub(policy, 1, 8) == 'allkeys-' then return {'evicting', policy} end
local guard = redis.call('GET', KEYS[2])
if guard and string.sub(guard, 1, 5) == 'lost:' then return {'lost', guard} end
-- the identity of the server of the guard's last claim (none before this version claimed)
local seen = redis.call('GET', KEYS[3])
local runid = string.match(redis.call('INFO', 'server'), 'run_id:(%x+)') or 'unknown'
local info = redis.call('INFO', 'replication')
local replid = string.match(info, 'master_replid:(%x+)') or 'unknown'
local replid2 = string.match(info, 'master_replid2:(%x+)') or 'unknown'
local identity = runid .. ':' .. replid
local counter = redis.call('GET', KEYS[1])
-- a < b for decimal integer strings, compared as strings (a Lua number would lose 63-bit precision)
local function below(a, b)
  if string.sub(a, 1, 1) == '-' then return true end
  a = string.gsub(a, '^0+', '')
  b = string.gsub(b, '^0+', '')
  if #a ~= #b then return #a < #b end
  return a < b
end
if counter and guard and guard == ARGV[2] and ARGV[4] ~= '' and below(counter, ARGV[4]) then
  local tomb = 'lost: a store that was handed values up to ' .. ARGV[4] .. ' under generation ' .. guard
    .. ' found the counter back at ' .. counter
    .. ' (an older copy restored, the last second of an AOF lost, a failover to a replica that missed claims)'
  redis.call('SET', KEYS[2], tomb)
  return {'lost', tomb}
end
if (ARGV[2] ~= '' and guard ~= ARGV[2]) or (guard and not counter) then
  local found = guard and ('generation ' .. guard) or 'no generation'
  local tomb = 'lost: a store that claimed under ' .. (ARGV[2] ~= '' and ('generation ' .. ARGV[2]) or 'no generation yet')
    .. ' found ' .. found .. ' and '
    .. (counter and ('the counter at ' .. counter) or 'no counter')
  redis.call('SET', KEYS[2], tomb)
  return {'lost', tomb}
end
if guard and seen and seen ~= identity and ARGV[5] ~= '1' then
  local colon = string.find(seen, ':', 1, true)
  local seenReplid = colon and string.sub(seen, colon + 1) or ''
  if seenReplid == '' or seenReplid == 'unknown' or replid2 ~= seenReplid then
    local tomb = 'lost: the counter, last claimed on the server ' .. seen .. ' under generation ' .. guard
      .. ', is now on the server ' .. identity .. ' at ' .. (counter or 'nothing')
      .. ' (a restart or a failover to a server that was not its replica; the server does not run appendfsync'
      .. ' always, so it may have come back from an older copy that lost claims: an AOF everysec losing its last'
      .. ' second, an older copy restored)'
    redis.call('SET', KEYS[2], tomb)
    return {'lost', tomb}
  end
end
if not guard then
  guard = ARGV[3]
  redis.call('SET', KEYS[2], guard)
end
if seen ~= identity then
  redis.call('SET', KEYS[3], identity)
end
redis.call('INCRBY', KEYS[1], ARGV[1])
return {redis.call('GET', KEYS[1]), identity, string.match(info, 'connected_slaves:(%d+)') or '0', guard}
