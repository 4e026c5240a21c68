--[[
  Acknowledges handled entries in the drains' consumer group and deletes them
  from the stream, so the stream holds exactly the events not yet handled.

  KEYS[1]   the event stream
  ARGV[1]   the consumer group
  ARGV[2..] the entry ids

  Returns  how many entries were deleted.
]]
local group = ARGV[1]
local deleted = 0
-- unpack() is bounded by Lua's C stack: go in chunks.
local chunk = 1000
for first = 2, #ARGV, chunk do
  local last = math.min(first + chunk - 1, #ARGV)
  redis.call('XACK', KEYS[1], group, unpack(ARGV, first, last))
  deleted = deleted + redis.call('XDEL', KEYS[1], unpack(ARGV, first, last))
end
return deleted
