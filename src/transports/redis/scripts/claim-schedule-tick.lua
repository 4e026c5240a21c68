--[[
  Claims a schedule's tick: a compare-and-set on the schedule's last tick, so
  that of every process racing for one tick exactly one wins it, and a tick at
  or before the stored one is refused (ticks only move forward).

  KEYS[1]  the hash of last ticks (field: schedule name, value: epoch ms)
  ARGV[1]  the schedule's name
  ARGV[2]  the tick's time, epoch ms (a whole number)

  Returns  1 when the tick was stored (no tick was, or an earlier one), else 0
]]
local last = redis.call('HGET', KEYS[1], ARGV[1])
if last and tonumber(last) >= tonumber(ARGV[2]) then
  return 0
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
