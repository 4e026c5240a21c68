--[[
  Stores dead letters, all in one atomic step: each letter's JSON in a hash
  under its id (replacing a letter with the same id), its id in a sorted set
  scored by when it was given up, and its group (handler, kind, reason) in a
  hash whose counts it keeps. Then, with a retention, drops the oldest
  letters beyond the maximum count and those given up before the cutoff.

  KEYS[1]  hash: letter id -> letter JSON
  KEYS[2]  sorted set: letter ids scored by deadAt (epoch ms)
  KEYS[3]  hash: letter id -> its group
  KEYS[4]  hash: group -> how many letters it holds (a group with none is deleted)
  KEYS[5]  string: letters dropped by the retention so far
  ARGV[1]  the most letters to keep, or 0 for no limit
  ARGV[2]  the cutoff (epoch ms): letters given up before it are dropped; '' for none
  ARGV[3…] quadruples: letter id, deadAt (epoch ms), group, letter JSON

  Returns  how many letters were dropped.

  Uses     uncount (includes/dead-letter-counts.lua).
  Invariant: KEYS[4] holds, per group, the number of ids in KEYS[3] with that group.
]]
local function drop(ids)
  for _, id in ipairs(ids) do
    uncount(KEYS[3], KEYS[4], id)
    redis.call('HDEL', KEYS[1], id)
    redis.call('ZREM', KEYS[2], id)
  end
  return #ids
end

for i = 3, #ARGV, 4 do
  local id = ARGV[i]
  uncount(KEYS[3], KEYS[4], id)
  redis.call('HSET', KEYS[1], id, ARGV[i + 3])
  redis.call('ZADD', KEYS[2], ARGV[i + 1], id)
  redis.call('HSET', KEYS[3], id, ARGV[i + 2])
  redis.call('HINCRBY', KEYS[4], ARGV[i + 2], 1)
end

local dropped = 0
if ARGV[2] ~= '' then
  -- A bounded batch per call keeps the script short; the next add drops the rest.
  dropped = dropped + drop(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', '(' .. ARGV[2], 'LIMIT', 0, 1000))
end
local max = tonumber(ARGV[1])
if max > 0 then
  local over = redis.call('ZCARD', KEYS[2]) - max
  if over > 0 then dropped = dropped + drop(redis.call('ZRANGE', KEYS[2], 0, math.min(over, 1000) - 1)) end
end
if dropped > 0 then redis.call('INCRBY', KEYS[5], dropped) end
return dropped
