--[[
  A worker leaves (on shutdown): lanes it still holds go back to `ready` and
  its lease ends, so other workers take over at once. The lease is expired,
  not removed: a blocking move still in flight may yet put a lane in its list,
  and the next sweep (ordered-maintain.lua) hands that back too. See
  ordered-steps.lua.

  ARGV[1]   ordering prefix
  ARGV[2]   worker id

  Returns  how many lanes went back.
]]
local P, W = ARGV[1], ARGV[2]
local list = P .. 'w:' .. W
local lanes = redis.call('LRANGE', list, 0, -1)
for _, lane in ipairs(lanes) do
  local L = P .. 'l:' .. lane
  if redis.call('HGET', L, 'owner') == W then redis.call('HDEL', L, 'owner') end
  redis.call('HSET', L, 'q', '1')
  redis.call('LPUSH', P .. 'ready', lane)
end
redis.call('DEL', list)
redis.call('ZADD', P .. 'workers', 0, W)
return #lanes
