--[[
  Makes every early batch whose deadline has come ready, due at its deadline
  (seed 004's deadline loop), in one atomic step, lines their subscribers up
  (includes/router-line-up.lua) and wakes waiting workers.

  KEYS[1]  P early   sorted set: batch id by deadline
  KEYS[2]  P due     sorted set: subscriber name by its next batch's due time
  KEYS[3]  P wake    list popped by waiting workers
  ARGV[1]  P, the router prefix: the batch (P b:<id>) and subscriber
           (P s:<name>, P sb:<name>, P sr:<name>) keys are built from it,
           under the same hash tag
  ARGV[2]  now (epoch ms)

  Returns  how many batches became ready. Keeps: a subscriber's `early`
           field names a batch still in `early`.
]]
local P = ARGV[1]
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[2], 'WITHSCORES')
local names = {}
for i = 1, #due, 2 do
  local id = due[i]
  local name = redis.call('HGET', P .. 'b:' .. id, 'sub')
  local s = P .. 's:' .. name
  redis.call('ZREM', KEYS[1], id)
  redis.call('ZADD', P .. 'sr:' .. name, due[i + 1], id)
  if redis.call('HGET', s, 'early') == id then redis.call('HDEL', s, 'early') end
  names[name] = true
end
for name in pairs(names) do lineUp(P, KEYS[2], name) end
local readied = #due / 2
if readied > 0 then
  for _ = 1, math.min(readied, 16) do redis.call('LPUSH', KEYS[3], 1) end
  redis.call('LTRIM', KEYS[3], 0, 15)
  redis.call('PEXPIRE', KEYS[3], 60000)
end
return readied
