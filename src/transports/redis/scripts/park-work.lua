--[[
  Parks work of a paused handler: appends it to the handler's parked list and
  records the handler among those with parked work, in one atomic step.

  KEYS[1]  the handler's parked list
  KEYS[2]  the set of handlers with parked work
  ARGV[1]  the handler's name
  ARGV[2]  the parked work (JSON)

  Returns  the length of the parked list.
]]
local length = redis.call('RPUSH', KEYS[1], ARGV[2])
redis.call('SADD', KEYS[2], ARGV[1])
return length
