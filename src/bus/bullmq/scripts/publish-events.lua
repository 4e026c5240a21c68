--[[
  Publishes events in order, in one atomic step. An event whose id was
  accepted within the dedupe window is dropped (a relay republishing an outbox
  row the publisher had already sent). An event with a delivery time in the
  future waits in the delayed set until release-delayed.lua moves it.

  KEYS[1]   the event stream
  KEYS[2]   the delayed set (score: delivery time in ms)
  ARGV[1]   prefix of the seen-id keys (the id is appended)
  ARGV[2]   dedupe window in milliseconds
  ARGV[3..] per event three arguments: id (or "" to skip the dedupe check),
            delivery time in ms or "", payload

  Returns  { appended to the stream, delayed, dropped as duplicates }
]]
local seenPrefix = ARGV[1]
local window = tonumber(ARGV[2])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local appended, delayed, dropped = 0, 0, 0
for i = 3, #ARGV, 3 do
  local id, deliverAt, payload = ARGV[i], ARGV[i + 1], ARGV[i + 2]
  if id == '' or redis.call('SET', seenPrefix .. id, '1', 'NX', 'PX', window) then
    if deliverAt ~= '' and tonumber(deliverAt) > now then
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
