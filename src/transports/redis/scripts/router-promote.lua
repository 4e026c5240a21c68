--[[
  Makes every early batch whose deadline has come ready, due at its deadline
  (seed 004's deadline loop), in one atomic step, and wakes waiting workers.

  KEYS[1]  P early   sorted set: batch id by deadline
  KEYS[2]  P ready   sorted set: batch id by due time
  KEYS[3]  P wake    list popped by waiting workers
  ARGV[1]  P, the router prefix: the batch (P b:<id>) and subscriber
           (P s:<name>) hashes are built from it, under the same hash tag
  ARGV[2]  now (epoch ms)

  Returns  how many batches became ready. Keeps: a subscriber's `early`
           field names a batch still in `early`.
]]
local P = ARGV[1]
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[2], 'WITHSCORES')
for i = 1, #due, 2 do
  local id = due[i]
  redis.call('ZREM', KEYS[1], id)
  redis.call('ZADD', KEYS[2], due[i + 1], id)
  local s = P .. 's:' .. redis.call('HGET', P .. 'b:' .. id, 'sub')
  if redis.call('HGET', s, 'early') == id then redis.call('HDEL', s, 'early') end
end
local readied = #due / 2
if readied > 0 then
  for _ = 1, math.min(readied, 16) do redis.call('LPUSH', KEYS[3], 1) end
  redis.call('LTRIM', KEYS[3], 0, 15)
  redis.call('PEXPIRE', KEYS[3], 60000)
end
return readied
