--[[
  Recovers the batches whose lease ended (their worker died; seed 004's scrub
  loop), in one atomic step: back to ready due at retryAt, one more attempt,
  no longer held; lines their subscribers up again
  (includes/router-line-up.lua) and wakes waiting workers.

  KEYS[1]  P pending   sorted set: batch id by lease end
  KEYS[2]  P holders   hash: pending batch id -> worker
  KEYS[3]  P due       sorted set: subscriber name by its next batch's due time
  KEYS[4]  P wake      list popped by waiting workers
  ARGV[1]  P, the router prefix: P b:<id>, P s:<name>, P sb:<name> and
           P sr:<name> are built from it, under the same hash tag
  ARGV[2]  now (epoch ms)
  ARGV[3]  retryAt (epoch ms)

  Returns  how many batches were recovered. Keeps `inflight`.
]]
local P = ARGV[1]
local expired = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[2])
local names = {}
for _, id in ipairs(expired) do
  local b = P .. 'b:' .. id
  local name = redis.call('HGET', b, 'sub')
  redis.call('ZREM', KEYS[1], id)
  redis.call('HDEL', KEYS[2], id)
  redis.call('ZADD', P .. 'sr:' .. name, ARGV[3], id)
  redis.call('HINCRBY', b, 'attempts', 1)
  redis.call('HINCRBY', P .. 's:' .. name, 'inflight', -1)
  names[name] = true
end
for name in pairs(names) do lineUp(P, KEYS[3], name) end
if #expired > 0 then
  for _ = 1, math.min(#expired, 16) do redis.call('LPUSH', KEYS[4], 1) end
  redis.call('LTRIM', KEYS[4], 0, 15)
  redis.call('PEXPIRE', KEYS[4], 60000)
end
return #expired
