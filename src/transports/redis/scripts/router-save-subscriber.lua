--[[
  Creates or updates a subscriber in one atomic step: its settings, and its
  topics (dropping those left out, creating missing topics with no
  publisher). Its batches, sent count, health, paused state and signing
  secrets stay (they change only through their own scripts); a new
  subscriber starts not paused, with no secrets. It is lined up again
  (includes/router-line-up.lua), as `ordered` may have changed.

  KEYS[1]  P subscribers   set of subscriber names
  KEYS[2]  P topics        hash: topic -> publisher ('' for none)
  KEYS[3]  P s:<name>      the subscriber's hash
  KEYS[4]  P st:<name>     set: its topics
  KEYS[5]  P due           sorted set: subscriber name by its next batch's due time
  ARGV[1]  P, the router prefix: each topic's P ts:<topic>, and the
           subscriber's P sb:<name> and P sr:<name>, are built from it
  ARGV[2]  name
  ARGV[3]  the record's JSON: name, callback and uuid
  ARGV[4]  maxEvents, or '' to keep the subscriber's own (ARGV[7] when new)
  ARGV[5]  timeoutMs, or '' to keep the subscriber's own (ARGV[8] when new)
  ARGV[6]  ordered (1 or 0), or '' to keep the subscriber's own (0 when new)
  ARGV[7]  the default maxEvents
  ARGV[8]  the default timeoutMs
  ARGV[9..] topics

  Returns  1. Keeps: a topic's P ts:<topic> holds exactly the subscribers
           whose P st:<name> holds the topic.
]]
local P, name = ARGV[1], ARGV[2]
redis.call('SADD', KEYS[1], name)
redis.call('HSET', KEYS[3], 'record', ARGV[3])
-- A setting left out ('') keeps the subscriber's own, or takes its default when new.
local function setOrKeep(field, value, default)
  if value == '' then
    redis.call('HSETNX', KEYS[3], field, default)
  else
    redis.call('HSET', KEYS[3], field, value)
  end
end
setOrKeep('max', ARGV[4], ARGV[7])
setOrKeep('timeout', ARGV[5], ARGV[8])
setOrKeep('ordered', ARGV[6], 0)
redis.call('HSETNX', KEYS[3], 'paused', 0)
redis.call('HSETNX', KEYS[3], 'health', 100)
local wanted = {}
for i = 9, #ARGV do wanted[ARGV[i]] = true end
for _, topic in ipairs(redis.call('SMEMBERS', KEYS[4])) do
  if not wanted[topic] then
    redis.call('SREM', KEYS[4], topic)
    redis.call('SREM', P .. 'ts:' .. topic, name)
  end
end
for i = 9, #ARGV do
  redis.call('SADD', KEYS[4], ARGV[i])
  redis.call('SADD', P .. 'ts:' .. ARGV[i], name)
  redis.call('HSETNX', KEYS[2], ARGV[i], '')
end
lineUp(P, KEYS[5], name)
return 1
