--[[
  An operator resumes halted lanes: "redrive" runs the halted event again
  with fresh attempts; "skip" marks it so that the worker that takes it next
  gives up its failed handler (keeping a dead letter) and goes on with the
  rest. See ordered-steps.lua.

  ARGV[1]   ordering prefix
  ARGV[2]   "redrive" or "skip"
  ARGV[3..] lanes

  Returns  how many of them were halted and are now queued again.
]]
local P, mode = ARGV[1], ARGV[2]
local resumed = 0
for i = 3, #ARGV do
  local lane = ARGV[i]
  local L = P .. 'l:' .. lane
  if redis.call('ZREM', P .. 'halted', lane) == 1 then
    if mode == 'skip' then
      redis.call('HSET', L, 'skip', redis.call('HGET', L, 'halt') or '{}')
    else
      redis.call('HSET', L, 'ca', '0', 'cf', '')
    end
    redis.call('HDEL', L, 'halt')
    if redis.call('HSETNX', L, 'q', '1') == 1 then redis.call('LPUSH', P .. 'ready', lane) end
    resumed = resumed + 1
  end
end
return resumed
