--[[
  A sync lane's skipped positions: the ranges [from, to) its re-bases went
  past, kept in its field `sk` of P l:<lane> as "from:to:why:at" entries
  separated by ";", oldest first, so publish-events.lua can tell an event that
  comes late for a skipped position (a dead letter) from a copy of one handled
  (dropped). At most SKIPPED_KEPT entries: past that the two oldest merge into
  one, so a position between them reads as skipped too (its copy becomes a
  dead letter rather than a silent drop).

  recordSkipped(L, from, to, why, at)  re-bases call it (ordered-steps.lua, ordered-rebase.lua)
  skippedAt(L, pos)                    { from, to, why, at } of the range holding pos, or nil
]]
local SKIPPED_KEPT = 32

local function skippedRanges(L)
  local out = {}
  local raw = redis.call('HGET', L, 'sk')
  if raw then
    for from, to, why, at in string.gmatch(raw, '(%d+):(%d+):([%a%-]+):(%d+)') do
      out[#out + 1] = { tonumber(from), tonumber(to), why, at }
    end
  end
  return out
end

local function recordSkipped(L, from, to, why, at)
  from, to = tonumber(from), tonumber(to)
  if to <= from then return end
  local ranges = skippedRanges(L)
  ranges[#ranges + 1] = { from, to, why, string.format('%d', at) }
  if #ranges > SKIPPED_KEPT then
    local newer = ranges[2]
    newer[1] = ranges[1][1]
    table.remove(ranges, 1)
  end
  local parts = {}
  for i, r in ipairs(ranges) do parts[i] = string.format('%d:%d:%s:%s', r[1], r[2], r[3], r[4]) end
  redis.call('HSET', L, 'sk', table.concat(parts, ';'))
end

local function skippedAt(L, pos)
  for _, r in ipairs(skippedRanges(L)) do
    if pos >= r[1] and pos < r[2] then return r end
  end
  return nil
end
