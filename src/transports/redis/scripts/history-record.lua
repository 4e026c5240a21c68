--[[
  Adds a process's counts into the bus's current minute, on Redis's clock,
  and keeps the largest backlog sample; removes the minutes past the
  retention whenever a new minute begins.

  KEYS[1]  the hash of minutes (field: the minute's start, epoch ms; value:
           "<published> <handled> <failed> <retried> <deadLettered> <backlog> <backlogAgeMs>",
           a gauge "-" when none was sampled)
  ARGV[1..5]  published, handled, failed, retried, deadLettered (whole numbers)
  ARGV[6..7]  backlog, backlogAgeMs ("-" when not sampled)
  ARGV[8]  how many minutes are kept, the current one included

  Returns  the minute's start, epoch ms
]]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local minute = now - (now % 60000)
local field = string.format('%d', minute)
local old = redis.call('HGET', KEYS[1], field)
local values = {}
if old then
  for part in string.gmatch(old, '%S+') do values[#values + 1] = part end
else
  values = { '0', '0', '0', '0', '0', '-', '-' }
end
for i = 1, 5 do
  values[i] = string.format('%d', tonumber(values[i]) + tonumber(ARGV[i]))
end
for i = 6, 7 do
  local given = ARGV[i]
  if given ~= '-' and (values[i] == '-' or tonumber(given) > tonumber(values[i])) then values[i] = given end
end
redis.call('HSET', KEYS[1], field, table.concat(values, ' '))
if not old then
  local oldest = minute - (tonumber(ARGV[8]) - 1) * 60000
  local fields = redis.call('HKEYS', KEYS[1])
  for _, f in ipairs(fields) do
    local at = tonumber(f)
    if at == nil or at < oldest then redis.call('HDEL', KEYS[1], f) end
  end
end
return minute
