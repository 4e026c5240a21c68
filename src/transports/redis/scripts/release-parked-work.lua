--[[
  Removes items already enqueued again from the head of a handler's parked
  list, if the caller still holds the release lock (a caller that lost it
  removes nothing: its items are released again by the next holder). Forgets
  the handler once its list is empty; drops the lock when asked.

  KEYS[1]  the handler's parked list
  KEYS[2]  the handler's release lock
  KEYS[3]  the set of handlers with parked work
  ARGV[1]  the caller's token
  ARGV[2]  how many items were enqueued (taken off the head)
  ARGV[3]  the handler's name
  ARGV[4]  '1' to drop the lock afterwards

  Returns  how many items are left parked, or -1 when the lock was lost.
]]
if redis.call('GET', KEYS[2]) ~= ARGV[1] then
  return -1
end
local released = tonumber(ARGV[2])
if released > 0 then
  redis.call('LTRIM', KEYS[1], released, -1)
end
local left = redis.call('LLEN', KEYS[1])
if left == 0 then
  redis.call('SREM', KEYS[3], ARGV[3])
end
if ARGV[4] == '1' then
  redis.call('DEL', KEYS[2])
end
return left
