--[[
  A worker's periodic upkeep of the ordered lanes: renews its lease, hands the
  lanes of dead workers back to `ready` (their ownerships end with their
  leases, so another worker resumes each lane at its current event, and a
  worker that was only stalled finds its steps `lost` when it comes back), and
  moves lanes whose retry is due, and sync lanes whose gap wait is over, back
  to `ready` (a worker then re-bases the latter). See ordered-steps.lua for
  the keys.

  KEYS[1]   P ready
  KEYS[2]   P workers
  KEYS[3]   P retry
  KEYS[4]   P gaps
  ARGV[1]   the ordering prefix P: the dead workers' lists (P w:<W>) and the
            lanes in them or due in `retry` or `gaps` (P l:<lane>) are found only
            here, so their keys are built from it, under the same hash tag
  ARGV[2]   worker id, or "" to only do the sweeping
  ARGV[3]   lease in milliseconds
  ARGV[4]   most lanes to move per call

  Returns  { lanes recovered from dead workers, lanes whose retry or gap wait was due }
]]
local P, W, lease, limit = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
local READY, WORKERS, RETRY, GAPS = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if W ~= '' then redis.call('ZADD', WORKERS, now + lease, W) end

local function enqueue(lane)
  if redis.call('HSETNX', P .. 'l:' .. lane, 'q', '1') == 1 then redis.call('LPUSH', READY, lane) end
end

local recovered = 0
for _, dead in ipairs(redis.call('ZRANGEBYSCORE', WORKERS, '-inf', now, 'LIMIT', 0, 100)) do
  local list = P .. 'w:' .. dead
  for _, lane in ipairs(redis.call('LRANGE', list, 0, -1)) do
    local L = P .. 'l:' .. lane
    -- Its ownership ends here: a lane still owned by it is in no w:<W> list now.
    if redis.call('HGET', L, 'owner') == dead then redis.call('HDEL', L, 'owner') end
    -- A lane it popped but never claimed still has q set: push it back as is.
    redis.call('HDEL', L, 'q')
    enqueue(lane)
    recovered = recovered + 1
  end
  redis.call('DEL', list)
  redis.call('ZREM', WORKERS, dead)
end

local due = redis.call('ZRANGEBYSCORE', RETRY, '-inf', now, 'LIMIT', 0, limit)
for _, lane in ipairs(due) do
  redis.call('ZREM', RETRY, lane)
  enqueue(lane)
end
local gapsDue = redis.call('ZRANGEBYSCORE', GAPS, '-inf', now, 'LIMIT', 0, limit)
for _, lane in ipairs(gapsDue) do
  redis.call('ZREM', GAPS, lane)
  enqueue(lane)
end
return { recovered, #due + #gapsDue }
