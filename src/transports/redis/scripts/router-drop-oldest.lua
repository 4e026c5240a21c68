--[[
  Drops up to `limit` of the oldest batches (by creation) that are early or
  ready, never pending ones (seed 004's autodrop), in one atomic step, and
  lines their subscribers up again (includes/router-line-up.lua: an ordered
  one's oldest batch may have gone).

  KEYS[1]  P all       sorted set: batch id by seq
  KEYS[2]  P pending   sorted set: batch id by lease end
  KEYS[3]  P early     sorted set: batch id by deadline
  KEYS[4]  P due       sorted set: subscriber name by its next batch's due time
  ARGV[1]  P, the router prefix: P b:<id>, P e:<id>, P s:<name>, P sb:<name>
           and P sr:<name> are built from it, under the same hash tag
  ARGV[2]  limit

  Returns  {subscriber, events dropped, ...} per batch dropped, oldest first.
  Keeps:   `queued` and `early` of the subscribers.
]]
local P, limit = ARGV[1], tonumber(ARGV[2])
local dropped = {}
local names = {}
local from = 0
while #dropped < 2 * limit do
  local ids = redis.call('ZRANGE', KEYS[1], from, from + 99)
  if #ids == 0 then break end
  for _, id in ipairs(ids) do
    if #dropped >= 2 * limit then break end
    if redis.call('ZSCORE', KEYS[2], id) then
      from = from + 1
    else
      local b = P .. 'b:' .. id
      local meta = redis.call('HMGET', b, 'sub', 'n')
      local s = P .. 's:' .. meta[1]
      redis.call('DEL', b, P .. 'e:' .. id)
      redis.call('ZREM', KEYS[1], id)
      redis.call('ZREM', KEYS[3], id)
      redis.call('ZREM', P .. 'sr:' .. meta[1], id)
      redis.call('ZREM', P .. 'sb:' .. meta[1], id)
      redis.call('HINCRBY', s, 'queued', -tonumber(meta[2]))
      if redis.call('HGET', s, 'early') == id then redis.call('HDEL', s, 'early') end
      dropped[#dropped + 1] = meta[1]
      dropped[#dropped + 1] = meta[2]
      names[meta[1]] = true
    end
  end
end
for name in pairs(names) do lineUp(P, KEYS[4], name) end
return dropped
