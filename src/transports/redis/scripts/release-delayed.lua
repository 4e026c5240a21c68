--[[
  Moves delayed events that are due (by Redis's clock) into the stream, oldest
  delivery time first, in one atomic step.

  KEYS[1]  the delayed set (score: delivery time in ms)
  KEYS[2]  the event stream
  ARGV[1]  most events to move

  Returns  how many events were moved
]]
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[1]))
for i = 1, #due do
  redis.call('XADD', KEYS[2], '*', 'p', due[i])
end
-- unpack() is bounded by Lua's C stack: remove in chunks.
local chunk = 1000
for first = 1, #due, chunk do
  redis.call('ZREM', KEYS[1], unpack(due, first, math.min(first + chunk - 1, #due)))
end
return #due
