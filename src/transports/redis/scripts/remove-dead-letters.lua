--[[
  Removes dead letters, all in one atomic step. A letter given with a deadAt
  is removed only if it still has that deadAt, so a letter that was given up
  again after it was read (its re-drive failed) is kept. A removed letter's
  group count goes down by one (a letter written around the store has none).

  KEYS[1]  hash: letter id -> letter JSON
  KEYS[2]  sorted set: letter ids scored by deadAt (epoch ms)
  KEYS[3]  hash: letter id -> its group
  KEYS[4]  hash: group -> how many letters it holds (a group with none is deleted)
  ARGV     pairs: letter id, expected deadAt (epoch ms) or '' for any

  Returns  how many letters were removed.
  Uses     uncount (includes/dead-letter-counts.lua).
]]
local removed = 0
for i = 1, #ARGV, 2 do
  local id = ARGV[i]
  local expected = ARGV[i + 1]
  local score = redis.call('ZSCORE', KEYS[2], id)
  if score and (expected == '' or tonumber(score) == tonumber(expected)) then
    redis.call('HDEL', KEYS[1], id)
    redis.call('ZREM', KEYS[2], id)
    uncount(KEYS[3], KEYS[4], id)
    removed = removed + 1
  end
end
return removed
