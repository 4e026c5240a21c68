--[[
  Publishes events to a topic in one atomic step (seed 004's ingestion):
  claims the topic for the publisher when it has none, counts the events, and
  appends them to the early batch of every subscriber of the topic (by name),
  creating batches as needed; a batch that reaches the subscriber's `max` events, or
  whose deadline (creation + `timeout`) has come, becomes ready at once.

  P is the router prefix (`<tag>:router:`); the keys of the topic's
  subscribers and of batches are built from it here, under the same hash tag:
    P s:<name>    subscriber hash (max, timeout, early, queued, ...)
    P sb:<name>   sorted set: the subscriber's batch ids by seq
    P sr:<name>   sorted set: the subscriber's ready batch ids by due time
    P b:<id>      batch hash: sub, createdAt, attempts, lastError, n, seq
    P e:<id>      list: the batch's events (JSON), in publishing order

  Invariants: a subscriber's `early` field names a batch in `early` (or is
  absent); every batch is in `all` and its subscriber's `sb`, and in exactly
  one of `early`, its subscriber's `sr`, `pending`; `queued` is the sum of
  its batches' `n`; `due` lines subscribers up as includes/router-line-up.lua
  says.

  KEYS[1]  P topics        hash: topic -> publisher ('' for none)
  KEYS[2]  P topic-events  hash: topic -> events published
  KEYS[3]  P seq           batch counter
  KEYS[4]  P all           sorted set: batch id by seq
  KEYS[5]  P early         sorted set: batch id by deadline
  KEYS[6]  P due           sorted set: subscriber name by its next batch's due time
  KEYS[7]  P wake          list popped by waiting workers
  KEYS[8]  P ts:<topic>    set: the topic's subscribers
  ARGV[1]  P
  ARGV[2]  publisher
  ARGV[3]  topic
  ARGV[4]  now (epoch ms)
  ARGV[5]  nonce, unique to this call, ending the ids of the batches made
  ARGV[6..] the events, JSON

  Returns  {1, subscribers reached}, or {0, owner} when another client owns
           the topic (then nothing changed).
]]
local P, publisher, topic, now, nonce = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4]), ARGV[5]
local owner = redis.call('HGET', KEYS[1], topic)
if owner and owner ~= '' and owner ~= publisher then return {0, owner} end
if owner ~= publisher then redis.call('HSET', KEYS[1], topic, publisher) end
local total = #ARGV - 5
redis.call('HINCRBY', KEYS[2], topic, total)

local function push(list, from, to)
  for i = from, to, 500 do
    redis.call('RPUSH', list, unpack(ARGV, i, math.min(i + 499, to)))
  end
end

local subs = redis.call('SMEMBERS', KEYS[8])
-- By name, so batches are numbered alike whatever the set's order.
table.sort(subs)
local readied = 0
for _, name in ipairs(subs) do
  local s = P .. 's:' .. name
  local conf = redis.call('HMGET', s, 'max', 'timeout', 'early')
  local max, timeout, id = tonumber(conf[1]), tonumber(conf[2]), conf[3]
  local readiedHere = 0
  local i = 6
  while i <= #ARGV do
    local n, deadline
    if id then
      n = tonumber(redis.call('HGET', P .. 'b:' .. id, 'n'))
      deadline = tonumber(redis.call('ZSCORE', KEYS[5], id))
    else
      local seq = redis.call('INCR', KEYS[3])
      id = string.format('%012d-%s', seq, nonce)
      n, deadline = 0, now + timeout
      redis.call('HSET', P .. 'b:' .. id, 'sub', name, 'createdAt', now, 'attempts', 0, 'n', 0, 'seq', seq)
      redis.call('ZADD', KEYS[4], seq, id)
      redis.call('ZADD', P .. 'sb:' .. name, seq, id)
      redis.call('ZADD', KEYS[5], deadline, id)
      redis.call('HSET', s, 'early', id)
    end
    local take = math.max(0, math.min(max - n, #ARGV - i + 1))
    if take > 0 then
      push(P .. 'e:' .. id, i, i + take - 1)
      redis.call('HINCRBY', P .. 'b:' .. id, 'n', take)
      i = i + take
    end
    if n + take >= max or deadline <= now then
      redis.call('ZREM', KEYS[5], id)
      redis.call('ZADD', P .. 'sr:' .. name, now, id)
      redis.call('HDEL', s, 'early')
      readiedHere = readiedHere + 1
      id = nil
    end
  end
  redis.call('HINCRBY', s, 'queued', total)
  if readiedHere > 0 then
    lineUp(P, KEYS[6], name)
    readied = readied + readiedHere
  end
end
if readied > 0 then
  for _ = 1, math.min(readied, 16) do redis.call('LPUSH', KEYS[7], 1) end
  redis.call('LTRIM', KEYS[7], 0, 15)
  redis.call('PEXPIRE', KEYS[7], 60000)
end
return {1, #subs}
