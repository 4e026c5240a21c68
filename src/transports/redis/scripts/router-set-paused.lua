--[[
  Pauses or resumes a subscriber's deliveries; on resume, wakes waiting
  workers (its ready batches may be taken again).

  KEYS[1]  P s:<name>   the subscriber's hash
  KEYS[2]  P wake       list popped by waiting workers
  ARGV[1]  1 to pause, 0 to resume

  Returns  1, or 0 when there is no such subscriber.
]]
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'paused', ARGV[1])
if ARGV[1] == '0' then
  redis.call('LPUSH', KEYS[2], 1)
  redis.call('LTRIM', KEYS[2], 0, 15)
  redis.call('PEXPIRE', KEYS[2], 60000)
end
return 1
