--[[
  Removes dead letters, all in one atomic step. A letter given with a deadAt
  is removed only if it still has that deadAt, so a letter that was given up
  again after it was read (its re-drive failed) is kept.

  KEYS[1]  hash: letter id -> letter JSON
  KEYS[2]  sorted set: letter ids scored by deadAt (epoch ms)
  ARGV     pairs: letter id, expected deadAt (epoch ms) or '' for any

  Returns  how many letters were removed.
]]
local removed = 0
for i = 1, #ARGV, 2 do
  local id = ARGV[i]
  local expected = ARGV[i + 1]
  local score = redis.call('ZSCORE', KEYS[2], id)
  if score and (expected == '' or tonumber(score) == tonumber(expected)) then
    redis.call('HDEL', KEYS[1], id)
    redis.call('ZREM', KEYS[2], id)
    removed = removed + 1
  end
end
return removed
