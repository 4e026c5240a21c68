--[[
  Takes ready batches due by now for one worker, oldest due first, in one
  atomic step (seed 004's worker loop, under a lease): skips the batches of
  paused subscribers, of subscribers with `maxInFlight` batches out (1 for
  ordered ones), and of ordered subscribers whose oldest batch (first in
  P sb:<name>) is not this one, so they go out in creation order. Looks at
  no more than `limit` + 1000 due batches, to keep the step short.

  KEYS[1]  P ready     sorted set: batch id by due time
  KEYS[2]  P pending   sorted set: batch id by lease end
  KEYS[3]  P holders   hash: pending batch id -> worker
  ARGV[1]  P, the router prefix: P b:<id>, P e:<id>, P s:<name> and
           P sb:<name> are built from it, under the same hash tag
  ARGV[2]  worker id
  ARGV[3]  limit
  ARGV[4]  now (epoch ms)
  ARGV[5]  lease (ms)
  ARGV[6]  maxInFlight per subscriber

  Returns  per batch taken {id, subscriber, createdAt, attempts, health,
           lastError ('' if none), 1 if it has a lastError else 0, {events}}.
  Keeps:   a subscriber's `inflight` counts its batches in `pending`.
]]
local P, worker, limit, now = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
local leaseEnd, cap = now + tonumber(ARGV[5]), tonumber(ARGV[6])
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, limit + 1000)
local subs = {}
local taken = {}
for _, id in ipairs(due) do
  if #taken >= limit then break end
  local b = P .. 'b:' .. id
  local meta = redis.call('HMGET', b, 'sub', 'createdAt', 'attempts', 'lastError')
  local name = meta[1]
  local sub = subs[name]
  if not sub then
    local f = redis.call('HMGET', P .. 's:' .. name, 'paused', 'ordered', 'inflight', 'health')
    sub = { paused = f[1] == '1', ordered = f[2] == '1', inflight = tonumber(f[3] or '0'), health = f[4] or '100' }
    sub.cap = sub.ordered and 1 or cap
    subs[name] = sub
  end
  local ok = not sub.paused and sub.inflight < sub.cap
  if ok and sub.ordered then
    ok = redis.call('ZRANGE', P .. 'sb:' .. name, 0, 0)[1] == id
  end
  if ok then
    sub.inflight = sub.inflight + 1
    redis.call('HINCRBY', P .. 's:' .. name, 'inflight', 1)
    redis.call('ZREM', KEYS[1], id)
    redis.call('ZADD', KEYS[2], leaseEnd, id)
    redis.call('HSET', KEYS[3], id, worker)
    local events = redis.call('LRANGE', P .. 'e:' .. id, 0, -1)
    taken[#taken + 1] = { id, name, meta[2], meta[3], sub.health, meta[4] or '', meta[4] and 1 or 0, events }
  end
end
return taken
