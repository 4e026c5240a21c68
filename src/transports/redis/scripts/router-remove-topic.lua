--[[
  Removes a topic and every subscription to it, atomically; the events
  already queued stay with their subscribers.

  KEYS[1]  P topics        hash: topic -> publisher ('' for none)
  KEYS[2]  P topic-events  hash: topic -> events published
  KEYS[3]  P ts:<topic>    set: the topic's subscribers
  ARGV[1]  P, the router prefix: each subscriber's P st:<name> is built from it
  ARGV[2]  topic

  Returns  1, or 0 when there was no such topic (its subscriptions, if any,
           are removed all the same).
]]
local P, topic = ARGV[1], ARGV[2]
for _, name in ipairs(redis.call('SMEMBERS', KEYS[3])) do
  redis.call('SREM', P .. 'st:' .. name, topic)
end
redis.call('DEL', KEYS[3])
redis.call('HDEL', KEYS[2], topic)
return redis.call('HDEL', KEYS[1], topic)
