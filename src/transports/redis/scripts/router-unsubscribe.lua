--[[
  Stops one subscriber receiving one topic, atomically.

  KEYS[1]  P s:<name>    the subscriber's hash
  KEYS[2]  P st:<name>   set: its topics
  KEYS[3]  P ts:<topic>  set: the topic's subscribers
  ARGV[1]  name
  ARGV[2]  topic

  Returns  'removed', 'no-subscriber' or 'not-subscribed'.
]]
if redis.call('EXISTS', KEYS[1]) == 0 then return 'no-subscriber' end
if redis.call('SREM', KEYS[2], ARGV[2]) == 0 then return 'not-subscribed' end
redis.call('SREM', KEYS[3], ARGV[1])
return 'removed'
