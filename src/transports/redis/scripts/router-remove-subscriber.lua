--[[
  Removes a subscriber in one atomic step: its settings, its topics, and its
  batches whatever their state (a worker holding one can no longer settle it).

  KEYS[1]  P subscribers   set of subscriber names
  KEYS[2]  P all           sorted set: batch id by seq
  KEYS[3]  P early         sorted set: batch id by deadline
  KEYS[4]  P due           sorted set: subscriber name by its next batch's due time
  KEYS[5]  P pending       sorted set: batch id by lease end
  KEYS[6]  P holders       hash: pending batch id -> worker
  KEYS[7]  P s:<name>      the subscriber's hash
  KEYS[8]  P st:<name>     set: its topics
  KEYS[9]  P sb:<name>     sorted set: its batch ids
  KEYS[10] P sr:<name>     sorted set: its ready batch ids
  ARGV[1]  P, the router prefix: P b:<id>, P e:<id> and P ts:<topic> are
           built from it, under the same hash tag
  ARGV[2]  name

  Returns  1, or 0 when there was no such subscriber.
]]
local P, name = ARGV[1], ARGV[2]
if redis.call('SREM', KEYS[1], name) == 0 then return 0 end
for _, id in ipairs(redis.call('ZRANGE', KEYS[9], 0, -1)) do
  redis.call('DEL', P .. 'b:' .. id, P .. 'e:' .. id)
  redis.call('ZREM', KEYS[2], id)
  redis.call('ZREM', KEYS[3], id)
  redis.call('ZREM', KEYS[5], id)
  redis.call('HDEL', KEYS[6], id)
end
redis.call('ZREM', KEYS[4], name)
for _, topic in ipairs(redis.call('SMEMBERS', KEYS[8])) do
  redis.call('SREM', P .. 'ts:' .. topic, name)
end
redis.call('DEL', KEYS[7], KEYS[8], KEYS[9], KEYS[10])
return 1
