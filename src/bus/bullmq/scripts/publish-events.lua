--[[
  Publishes events in order, in one atomic step. An event whose id was
  accepted within the dedupe window is dropped (a relay republishing an outbox
  row the publisher had already sent). An event with a delivery time in the
  future waits in the delayed set until release-delayed.lua moves it. An
  ordered event goes to its key's sync lane at its position (given by the
  unit of work's transaction, or the lane's next one here) instead of the
  stream; see ordered-steps.lua for the lanes.

  KEYS[1]   the event stream
  KEYS[2]   the delayed set (score: delivery time in ms)
  ARGV[1]   prefix of the seen-id keys (the id is appended)
  ARGV[2]   dedupe window in milliseconds
  ARGV[3]   ordering prefix
  ARGV[4..] per event five arguments: id (or "" to skip the dedupe check),
            delivery time in ms or "", payload, lane or "", position or ""

  Returns  { appended to the stream or a lane, delayed, dropped as duplicates }
]]
local seenPrefix = ARGV[1]
local window = tonumber(ARGV[2])
local P = ARGV[3]
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local appended, delayed, dropped = 0, 0, 0
for i = 4, #ARGV, 5 do
  local id, deliverAt, payload, lane, position = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3], ARGV[i + 4]
  if id == '' or redis.call('SET', seenPrefix .. id, '1', 'NX', 'PX', window) then
    if lane ~= '' then
      local L = P .. 'l:' .. lane
      local pos
      if position == '' then
        pos = redis.call('HINCRBY', L, 'tail', 1)
      else
        pos = tonumber(position)
      end
      -- A position already handled or already here is a republished event.
      if pos < tonumber(redis.call('HGET', L, 'next') or '1')
        or redis.call('HSETNX', P .. 'e:' .. lane, pos, payload) == 0 then
        dropped = dropped + 1
      else
        redis.call('INCR', P .. 'pending')
        if redis.call('HSETNX', L, 'q', '1') == 1 then redis.call('LPUSH', P .. 'ready', lane) end
        appended = appended + 1
      end
    elseif deliverAt ~= '' and tonumber(deliverAt) > now then
      redis.call('ZADD', KEYS[2], tonumber(deliverAt), payload)
      delayed = delayed + 1
    else
      redis.call('XADD', KEYS[1], '*', 'p', payload)
      appended = appended + 1
    end
  else
    dropped = dropped + 1
  end
end
return { appended, delayed, dropped }
