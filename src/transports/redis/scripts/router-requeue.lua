--[[
  Puts events back for a subscriber as a new ready batch, due now (a
  re-driven dead letter), in one atomic step, lines the subscriber up
  (includes/router-line-up.lua) and wakes waiting workers.

  KEYS[1]  P s:<name>   the subscriber's hash
  KEYS[2]  P sb:<name>  sorted set: its batch ids by seq
  KEYS[3]  P sr:<name>  sorted set: its ready batch ids by due time
  KEYS[4]  P seq        batch counter
  KEYS[5]  P all        sorted set: batch id by seq
  KEYS[6]  P due        sorted set: subscriber name by its next batch's due time
  KEYS[7]  P wake       list popped by waiting workers
  ARGV[1]  P, the router prefix: P b:<id> and P e:<id> are built from it
           (and, by lineUp, the subscriber's keys above)
  ARGV[2]  subscriber name
  ARGV[3]  now (epoch ms)
  ARGV[4]  nonce ending the batch id
  ARGV[5..] the events, JSON

  Returns  1, or 0 when there is no such subscriber (nothing changed).
]]
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local P, name, now = ARGV[1], ARGV[2], ARGV[3]
local n = #ARGV - 4
if n == 0 then return 1 end
local seq = redis.call('INCR', KEYS[4])
local id = string.format('%012d-%s', seq, ARGV[4])
redis.call('HSET', P .. 'b:' .. id, 'sub', name, 'createdAt', now, 'attempts', 0, 'n', n, 'seq', seq)
for i = 5, #ARGV, 500 do
  redis.call('RPUSH', P .. 'e:' .. id, unpack(ARGV, i, math.min(i + 499, #ARGV)))
end
redis.call('ZADD', KEYS[5], seq, id)
redis.call('ZADD', KEYS[2], seq, id)
redis.call('ZADD', KEYS[3], now, id)
redis.call('HINCRBY', KEYS[1], 'queued', n)
lineUp(P, KEYS[6], name)
redis.call('LPUSH', KEYS[7], 1)
redis.call('LTRIM', KEYS[7], 0, 15)
redis.call('PEXPIRE', KEYS[7], 60000)
return 1
