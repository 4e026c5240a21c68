--[[
  Stores a worker's beat, stamped with Redis's clock, so that beats from
  machines whose clocks disagree compare fairly.

  KEYS[1]  the hash of workers (field: worker id, value: "<lastBeatAt ms>|<beat JSON>")
  ARGV[1]  the worker's id
  ARGV[2]  the beat, as JSON (without lastBeatAt)

  Returns  the beat's time, epoch ms
]]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('HSET', KEYS[1], ARGV[1], string.format('%d', now) .. '|' .. ARGV[2])
return now
