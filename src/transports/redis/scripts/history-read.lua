--[[
  Reads the bus's minutes from a first minute on, on Redis's clock.

  KEYS[1]  the hash of minutes (see history-record.lua)
  ARGV[1]  how far back to read, ms (the minute of now minus this, and on)
  ARGV[2]  how many minutes are kept, the current one included: older ones are never returned

  Returns  { now ms, field, value, field, value, ... }: Redis's clock, then the minutes read, in no order
]]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local current = now - (now % 60000)
local since = now - tonumber(ARGV[1])
local first = math.max(since - (since % 60000), current - (tonumber(ARGV[2]) - 1) * 60000)
local all = redis.call('HGETALL', KEYS[1])
local out = { now }
for i = 1, #all, 2 do
  local at = tonumber(all[i])
  if at ~= nil and at >= first then
    out[#out + 1] = all[i]
    out[#out + 1] = all[i + 1]
  end
end
return out
