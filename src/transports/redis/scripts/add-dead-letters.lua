--[[
  Stores dead letters, all in one atomic step: each letter's JSON in a hash
  under its id (replacing a letter with the same id), and its id in a sorted
  set scored by when it was given up.

  KEYS[1]  hash: letter id -> letter JSON
  KEYS[2]  sorted set: letter ids scored by deadAt (epoch ms)
  ARGV     triples: letter id, deadAt (epoch ms), letter JSON

  Returns  how many letters were new (the others replaced one with their id).
]]
local added = 0
for i = 1, #ARGV, 3 do
  added = added + redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 2])
  redis.call('ZADD', KEYS[2], ARGV[i + 1], ARGV[i])
end
return added
