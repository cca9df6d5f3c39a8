-- gene-id worker-id leases: the part every lease script starts with (RedisWorkerIdAssigner prepends this file).
-- Keys of a pool, all under one hash tag {<space>} so that one script touches one cluster slot:
--   KEYS[1] meta   hash: born (ms), gen (random id of the pool's current generation), runid (the Redis run_id the
--                  generation belongs to), server (run_id:master_replid of that server: master_replid changes when
--                  a replica is promoted, so a server that failed over and back without restarting is noticed),
--                  next (lowest worker id never granted in it), count (ids the index should
--                  hold), scan (where a rebuild of the index goes on, if one is under way)
--   KEYS[2] expiry sorted set: worker id -> when it is next free (lease expiry, release time, end of an unknown
--                  history). Only an index: it is rebuilt from the worker records when entries are missing.
--   <base><id>     one hash per worker id: owner, token, mark (ms), expiry (ms), gen, and unknownSince (ms) for a
--                  worker id whose record was lost. Everything about a worker id lives (and is lost) together.
-- Every number crosses the Lua boundary as a decimal string; every time is the server's (TIME), not a client's.
-- The run_id is read here from INFO, so a script can never act on a cached run_id of a server that has since
-- restarted or failed over.
local function str(n) return string.format('%.0f', n) end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local runid = string.match(redis.call('INFO', 'server'), 'run_id:(%x+)') or 'unknown'
local replication = redis.call('INFO', 'replication')
local server = runid .. ':' .. (string.match(replication, 'master_replid:(%x+)') or 'unknown')
local replicas = string.match(replication, 'connected_slaves:(%d+)') or '0' -- a renewal waits for them (WAIT)
local META, INDEX = KEYS[1], KEYS[2]

-- The pool's current generation, or nil (and what meta holds) when meta is missing or was written by another run
-- of the server (a restart, possibly from older files, or a failover): then every record is of unknown history.
-- A server that was promoted since (a failover back to a server that never restarted: same run_id, new
-- master_replid) counts as another server. A generation without 'server' (written by an older gene-id) takes it.
local function generation()
  local m = redis.call('HMGET', META, 'born', 'gen', 'runid', 'next', 'count', 'scan', 'server')
  if not m[1] or not m[2] or m[3] ~= runid then return nil, m end
  if m[7] ~= server then
    if m[7] and string.sub(m[7], 1, #runid + 1) == runid .. ':' then return nil, m end
    redis.call('HSET', META, 'server', server)
  end
  return {born = tonumber(m[1]), gen = m[2], next = tonumber(m[4] or '0') or 0, count = tonumber(m[5] or '0') or 0,
    scan = m[6] and tonumber(m[6])}, m
end
