--[[
  Takes (or renews) the lock that lets one process at a time release a
  handler's parked work, and returns the oldest items. Items stay in the list
  until release-parked-work.lua removes them, after they were enqueued.

  KEYS[1]  the handler's parked list
  KEYS[2]  the handler's release lock
  ARGV[1]  the caller's token
  ARGV[2]  lock expiry in milliseconds
  ARGV[3]  how many items to return at most

  Returns  the oldest items (possibly none), or nil when another caller holds the lock.
]]
local holder = redis.call('GET', KEYS[2])
if holder and holder ~= ARGV[1] then
  return false
end
redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
return redis.call('LRANGE', KEYS[1], 0, tonumber(ARGV[3]) - 1)
