--[[
  Takes ready batches due by now for one worker, oldest due first, in one
  atomic step (seed 004's worker loop, under a lease). It walks subscribers,
  not batches: the first in `due` (see includes/router-line-up.lua) gives its
  next batch (its earliest ready one or, when ordered, its oldest batch) and
  is lined up again, until `limit` batches are taken or no subscriber in line
  is due. Paused subscribers, those with `maxInFlight` batches out (1 for
  ordered ones) and ordered ones whose oldest batch is not ready are out of
  line, so however many batches they hold, they cost a take nothing.

  KEYS[1]  P due       sorted set: subscriber name by the due time of its next batch
  KEYS[2]  P pending   sorted set: batch id by lease end
  KEYS[3]  P holders   hash: pending batch id -> worker
  ARGV[1]  P, the router prefix: P b:<id>, P e:<id>, P s:<name>, P sb:<name>
           and P sr:<name> are built from it, under the same hash tag
  ARGV[2]  worker id
  ARGV[3]  limit
  ARGV[4]  now (epoch ms)
  ARGV[5]  lease (ms)
  ARGV[6]  maxInFlight per subscriber (kept as the subscriber's `cap`)

  Returns  per batch taken {id, subscriber, createdAt, attempts, health,
           lastError ('' if none), 1 if it has a lastError else 0, {events}}.
  Keeps:   a subscriber's `inflight` counts its batches in `pending`; a
           ready batch is in its subscriber's P sr:<name>, by due time.
]]
local P, worker, limit, now = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
local leaseEnd, cap = now + tonumber(ARGV[5]), tonumber(ARGV[6])
local taken = {}
-- Each turn takes a batch or lines a subscriber up again past now (or out):
-- the bound only guards against a `due` entry out of step with its subscriber.
for _ = 1, limit + 100 do
  if #taken >= limit then break end
  local name = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, 1)[1]
  if not name then break end
  local s = P .. 's:' .. name
  local f = redis.call('HMGET', s, 'paused', 'ordered', 'inflight', 'health', 'cap')
  if f[5] ~= ARGV[6] then redis.call('HSET', s, 'cap', cap) end
  local ordered = f[2] == '1'
  local id
  if f[1] == '0' and tonumber(f[3] or '0') < (ordered and 1 or cap) then
    local sr = P .. 'sr:' .. name
    if ordered then
      id = redis.call('ZRANGE', P .. 'sb:' .. name, 0, 0)[1]
      local at = id and redis.call('ZSCORE', sr, id)
      if not (at and tonumber(at) <= now) then id = nil end
    else
      id = redis.call('ZRANGEBYSCORE', sr, '-inf', now, 'LIMIT', 0, 1)[1]
    end
    if id then
      redis.call('ZREM', sr, id)
      redis.call('HINCRBY', s, 'inflight', 1)
      redis.call('ZADD', KEYS[2], leaseEnd, id)
      redis.call('HSET', KEYS[3], id, worker)
      local meta = redis.call('HMGET', P .. 'b:' .. id, 'createdAt', 'attempts', 'lastError')
      local events = redis.call('LRANGE', P .. 'e:' .. id, 0, -1)
      taken[#taken + 1] = { id, name, meta[1], meta[2], f[4] or '100', meta[3] or '', meta[3] and 1 or 0, events }
    end
  end
  lineUp(P, KEYS[1], name)
end
return taken
