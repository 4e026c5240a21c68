--[[
  An operator resumes halted lanes: "redrive" runs the halted event again
  with fresh attempts; "skip" marks it so that the worker that takes it next
  gives up its failed handler (keeping a dead letter) and goes on with the
  rest. Either way its delivery count starts again (cd 0): an event halted as
  `crashed` and re-driven after the fix is run, not refused again. See
  ordered-steps.lua.

  KEYS[1]   P ready
  KEYS[2]   P halted
  KEYS[3..] P l:<lane> of each lane, in the order of ARGV[2..]
  ARGV[1]   "redrive" or "skip"
  ARGV[2..] the lanes

  Returns  how many of them were halted and are now queued again.
]]
local READY, HALTED, mode = KEYS[1], KEYS[2], ARGV[1]
local resumed = 0
for i = 2, #ARGV do
  local lane = ARGV[i]
  local L = KEYS[i + 1]
  if redis.call('ZREM', HALTED, lane) == 1 then
    if mode == 'skip' then
      redis.call('HSET', L, 'skip', redis.call('HGET', L, 'halt') or '{}')
    else
      redis.call('HSET', L, 'ca', '0', 'cf', '')
    end
    redis.call('HSET', L, 'cd', '0')
    redis.call('HDEL', L, 'halt')
    if redis.call('HSETNX', L, 'q', '1') == 1 then redis.call('LPUSH', READY, lane) end
    resumed = resumed + 1
  end
end
return resumed
