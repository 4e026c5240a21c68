--[[
  Pauses or resumes a subscriber's deliveries, taking it out of line or
  lining it up again (includes/router-line-up.lua); on resume, wakes waiting
  workers (its ready batches may be taken again).

  KEYS[1]  P s:<name>   the subscriber's hash
  KEYS[2]  P due        sorted set: subscriber name by its next batch's due time
  KEYS[3]  P wake       list popped by waiting workers
  ARGV[1]  P, the router prefix: P sb:<name> and P sr:<name> are built from it
  ARGV[2]  name
  ARGV[3]  1 to pause, 0 to resume

  Returns  1, or 0 when there is no such subscriber.
]]
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'paused', ARGV[3])
lineUp(ARGV[1], KEYS[2], ARGV[2])
if ARGV[3] == '0' then
  redis.call('LPUSH', KEYS[3], 1)
  redis.call('LTRIM', KEYS[3], 0, 15)
  redis.call('PEXPIRE', KEYS[3], 60000)
end
return 1
