--[[
  Counts the batches workers will have to deliver by a time, for the
  scaling probe (GET /pulse/scaling), in one step (read only): of each
  subscriber not paused, its ready batches due by then, and its early batch
  when its deadline falls by then. Pending batches (being delivered) are
  not counted.

  KEYS[1]  P subscribers   set of subscriber names
  KEYS[2]  P early         sorted set: early batch ids by deadline
  ARGV[1]  P, the router prefix: P s:<name> and P sr:<name> are built from
           it, under the same hash tag
  ARGV[2]  the time, epoch ms

  Returns  the count.
]]
local P, by = ARGV[1], ARGV[2]
local count = 0
for _, name in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  local f = redis.call('HMGET', P .. 's:' .. name, 'paused', 'early')
  if f[1] ~= '1' then
    count = count + redis.call('ZCOUNT', P .. 'sr:' .. name, '-inf', by)
    if f[2] and f[2] ~= '' then
      local deadline = redis.call('ZSCORE', KEYS[2], f[2])
      if deadline and tonumber(deadline) <= tonumber(by) then count = count + 1 end
    end
  end
end
return count
