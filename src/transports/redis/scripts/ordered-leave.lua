--[[
  A worker leaves (on shutdown): lanes it still holds go back to `ready` and
  its lease ends, so other workers take over at once. The lease is expired,
  not removed: a blocking move still in flight may yet put a lane in its list,
  and the next sweep (ordered-maintain.lua) hands that back too. See
  ordered-steps.lua.

  KEYS[1]   P ready
  KEYS[2]   P workers
  KEYS[3]   P w:<W>, the worker's list
  ARGV[1]   the ordering prefix P: the lanes in the list are found only
            here, so their keys (P l:<lane>) are built from it, under the
            same hash tag
  ARGV[2]   worker id W

  Returns  how many lanes went back.
]]
local P, W = ARGV[1], ARGV[2]
local READY, WORKERS, list = KEYS[1], KEYS[2], KEYS[3]
local lanes = redis.call('LRANGE', list, 0, -1)
for _, lane in ipairs(lanes) do
  local L = P .. 'l:' .. lane
  if redis.call('HGET', L, 'owner') == W then redis.call('HDEL', L, 'owner') end
  redis.call('HSET', L, 'q', '1')
  redis.call('LPUSH', READY, lane)
end
redis.call('DEL', list)
redis.call('ZADD', WORKERS, 0, W)
return #lanes
