-- gene-id bucket map: store a new map in KEYS[1] (a hash: gene_bits, version, map, states) if the stored version is
-- ARGV[1] ('-1': if there is no map yet) and, for a change, its gene_bits are ARGV[3]. One key, so one cluster slot.
-- ARGV: expected version, new version, gene_bits, map text, states text; every number a decimal string, compared
-- as text (a Lua number would lose 63-bit precision).
-- Reply: {1 if stored else 0, the server's identity (run_id:master_replid), the number of replicas connected to it}
-- The client then waits (WAIT) until the replicas it knows of have the change.
local current = redis.call('HGET', KEYS[1], 'version')
local stored = 0
if ARGV[1] == '-1' then
  if not current then
    stored = 1
  end
elseif current == ARGV[1] and redis.call('HGET', KEYS[1], 'gene_bits') == ARGV[3] then
  stored = 1
end
if stored == 1 then
  redis.call('HSET', KEYS[1], 'gene_bits', ARGV[3], 'version', ARGV[2], 'map', ARGV[4], 'states', ARGV[5])
end
local runid = string.match(redis.call('INFO', 'server'), 'run_id:(%x+)') or 'unknown'
local info = redis.call('INFO', 'replication')
local replid = string.match(info, 'master_replid:(%x+)') or 'unknown'
return {stored, runid .. ':' .. replid, string.match(info, 'connected_slaves:(%d+)') or '0'}
