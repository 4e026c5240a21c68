--[[
  Publishes events in order, in one atomic step. An event whose id was
  accepted within the dedupe window is dropped (a relay republishing an outbox
  row the publisher had already sent). An event with a delivery time in the
  future waits in the delayed set until release-delayed.lua moves it. An
  ordered event goes to its key's sync lane at its position (given by the
  unit of work's transaction, or the lane's next one here) instead of the
  stream; see ordered-steps.lua for the lanes.

  A sync lane remembers in its field `pn` who numbers its events: 'g' when
  they arrive with positions (the publisher's outbox), 'l' when this script
  numbers them (from `tail`). The first event to arrive sets it; a lane from
  before the field reads as 'l' if it has a `tail`, 'g' if it has only a
  `next`. A batch with an event that numbers its lane the other way (or two
  that disagree) is refused whole, before anything is written: mixed, an
  event numbered here would land on a position the lane has passed and be
  dropped as a duplicate.

  Every key is passed in KEYS (all under the bus's hash tag, so one slot):
  KEYS[1]   the event stream
  KEYS[2]   the delayed set (score: delivery time in ms)
  KEYS[3]   the lanes' pending counter (ordering prefix .. 'pending')
  KEYS[4]   the lanes' ready list (ordering prefix .. 'ready')
  KEYS[5..] per event, in order: its seen-id key if it is checked for
            duplicates, then its lane's state and events hashes if it is
            ordered (ordering prefix .. 'l:' / 'e:' .. lane)
  ARGV[1]   dedupe window in milliseconds
  ARGV[2..] per event five arguments: "1" if it has a seen-id key (else ""),
            delivery time in ms or "", payload, lane or "", position or ""

  An ordered event for a position below the lane's `next` is a republished
  copy of one handled (dropped), unless a re-base skipped that position (the
  lane's `sk`, see includes/lane-skipped.lua): then it came late, the lane
  cannot take it (its turn is gone), and it is handed back to the publisher,
  which keeps it as a dead letter. Its seen-id is forgotten, so a publisher
  that failed to keep it and publishes it again finds it late again, not a
  duplicate.

  Returns  { appended to the stream or a lane, delayed, dropped as duplicates,
           late: per event that came late, { its index in the batch from 0,
           its position, the skipping re-base's from, to, why, at (ms) } },
           or when refused { 0, 0, 0, the lane, its numbering 'g' or 'l' }
  Invariant: a lane's events are all given positions or all numbered here.
]]
local window = tonumber(ARGV[1])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local appended, delayed, dropped, late = 0, 0, 0, {}

-- First pass, read-only: every ordered event must number its lane as the lane does.
local numbering, unset = {}, {}
local k = 5
for i = 2, #ARGV, 5 do
  if ARGV[i] ~= '' then k = k + 1 end
  local lane = ARGV[i + 3]
  if lane ~= '' then
    local L = KEYS[k]
    k = k + 2
    local mine = ARGV[i + 4] == '' and 'l' or 'g'
    local known = numbering[lane]
    if not known then
      local f = redis.call('HMGET', L, 'pn', 'tail', 'next')
      known = f[1] or (f[2] and 'l') or (f[3] and 'g')
      if not f[1] then unset[lane] = true end
    end
    if known and known ~= mine then return { 0, 0, 0, lane, known } end
    numbering[lane] = mine
  end
end

k = 5
for i = 2, #ARGV, 5 do
  local checked, deliverAt, payload, lane, position = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3], ARGV[i + 4]
  local fresh, seen = true, nil
  if checked ~= '' then
    seen = KEYS[k]
    fresh = redis.call('SET', seen, '1', 'NX', 'PX', window)
    k = k + 1
  end
  local L, E
  if lane ~= '' then
    L, E = KEYS[k], KEYS[k + 1]
    k = k + 2
  end
  if not fresh then
    dropped = dropped + 1
  elseif lane ~= '' then
    if unset[lane] then
      redis.call('HSET', L, 'pn', numbering[lane])
      unset[lane] = nil
    end
    local pos
    if position == '' then
      pos = redis.call('HINCRBY', L, 'tail', 1)
    else
      pos = tonumber(position)
    end
    local behind = pos < tonumber(redis.call('HGET', L, 'next') or '1')
    local skipped = behind and skippedAt(L, pos)
    if skipped then
      if seen then redis.call('DEL', seen) end
      late[#late + 1] = { (i - 2) / 5, pos, skipped[1], skipped[2], skipped[3], skipped[4] }
    -- A position already handled or already here is a republished event.
    elseif behind or redis.call('HSETNX', E, pos, payload) == 0 then
      dropped = dropped + 1
    else
      redis.call('INCR', KEYS[3])
      if redis.call('HSETNX', L, 'q', '1') == 1 then redis.call('LPUSH', KEYS[4], lane) end
      appended = appended + 1
    end
  elseif deliverAt ~= '' and tonumber(deliverAt) > now then
    redis.call('ZADD', KEYS[2], tonumber(deliverAt), payload)
    delayed = delayed + 1
  else
    redis.call('XADD', KEYS[1], '*', 'p', payload)
    appended = appended + 1
  end
end
return { appended, delayed, dropped, late }
