--[[
  Settles a batch a worker holds, in one atomic step: `ack` (delivered:
  removed, its events counted as sent, its subscriber healed +1 up to 100),
  `nack` (failed: back to ready due at retryAt, one more attempt, the error
  kept, its subscriber damaged -2 down to 0, waiting workers woken) or
  `discard` (dead-lettered: removed, nothing counted), and lines the
  subscriber up again (includes/router-line-up.lua). Does nothing when the
  worker no longer holds it (its lease was recovered, or it was removed).

  KEYS[1]  P pending   sorted set: batch id by lease end
  KEYS[2]  P holders   hash: pending batch id -> worker
  KEYS[3]  P all       sorted set: batch id by seq
  KEYS[4]  P due       sorted set: subscriber name by its next batch's due time
  KEYS[5]  P wake      list popped by waiting workers
  ARGV[1]  P, the router prefix: P b:<id>, P e:<id>, P s:<name>, P sb:<name>
           and P sr:<name> are built from it, under the same hash tag
  ARGV[2]  'ack', 'nack' or 'discard'
  ARGV[3]  worker id
  ARGV[4]  batch id
  ARGV[5]  nack: retryAt (epoch ms)
  ARGV[6]  nack: the error
  ARGV[7]  nack: now (epoch ms), when the subscriber's lastError happened

  Returns  1 when settled, 0 when the worker did not hold the batch.
  Keeps:   `inflight` and `queued` of the subscriber; no key of a removed
           batch is left.
]]
local P, mode, worker, id = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
if redis.call('HGET', KEYS[2], id) ~= worker then return 0 end
local b = P .. 'b:' .. id
local meta = redis.call('HMGET', b, 'sub', 'n')
local name, n = meta[1], tonumber(meta[2])
local s = P .. 's:' .. name
redis.call('ZREM', KEYS[1], id)
redis.call('HDEL', KEYS[2], id)
redis.call('HINCRBY', s, 'inflight', -1)
if mode == 'nack' then
  redis.call('ZADD', P .. 'sr:' .. name, ARGV[5], id)
  redis.call('HINCRBY', b, 'attempts', 1)
  redis.call('HSET', b, 'lastError', ARGV[6])
  redis.call('HSET', s, 'lastError', ARGV[6], 'lastErrorAt', ARGV[7])
  local health = tonumber(redis.call('HGET', s, 'health') or '100')
  redis.call('HSET', s, 'health', math.max(0, health - 2))
  lineUp(P, KEYS[4], name)
  redis.call('LPUSH', KEYS[5], 1)
  redis.call('LTRIM', KEYS[5], 0, 15)
  redis.call('PEXPIRE', KEYS[5], 60000)
  return 1
end
redis.call('DEL', b, P .. 'e:' .. id)
redis.call('ZREM', KEYS[3], id)
redis.call('ZREM', P .. 'sb:' .. name, id)
redis.call('HINCRBY', s, 'queued', -n)
if mode == 'ack' then
  redis.call('HINCRBY', s, 'sent', n)
  local health = tonumber(redis.call('HGET', s, 'health') or '100')
  redis.call('HSET', s, 'health', math.min(100, health + 1))
  redis.call('HDEL', s, 'lastError', 'lastErrorAt')
end
lineUp(P, KEYS[4], name)
return 1
