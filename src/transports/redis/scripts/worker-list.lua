--[[
  Lists the workers of a bus on Redis's clock, removing the records whose
  last beat is older than the retention (nobody beats for them any more).

  KEYS[1]  the hash of workers (field: worker id, value: "<lastBeatAt ms>|<beat JSON>")
  ARGV[1]  the retention, ms: records last beating longer ago are removed

  Returns  { now ms, value, value, ... }: Redis's clock, then every record kept
]]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local oldest = now - tonumber(ARGV[1])
local all = redis.call('HGETALL', KEYS[1])
local out = { now }
for i = 1, #all, 2 do
  local value = all[i + 1]
  local at = tonumber(string.match(value, '^(%d+)|'))
  if at == nil or at < oldest then
    redis.call('HDEL', KEYS[1], all[i])
  else
    out[#out + 1] = value
  end
end
return out
