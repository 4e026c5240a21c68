--[[
  An operator re-bases a sync lane on purpose: the lane goes on from
  `position` (by default the first position it holds) instead of waiting for
  the one at `next`, say after Redis lost its data or a position was lost for
  good. Refused while the lane has a current event (a worker runs it, it waits
  for a retry or it is halted: let it finish, or `redrive`/`skip` it), for a
  position above one the lane holds (that event would never run), for one
  below its `next` (positions handled already: a republished copy would run
  again) and, on a lane numbered here (`pn` 'l', see publish-events.lua), for
  one past `tail` + 1 (the events numbered before it would be dropped). A lane
  with no state (no `next`, `pn` or `tail`) that holds nothing is not touched
  ('unknown'): a `next` written there would set its numbering before its
  first event does. Recorded as
  the lanes' automatic re-bases are (see ordered-steps.lua), with why
  'operator', the positions it skips in the lane's `sk`
  (includes/lane-skipped.lua).

  KEYS[1]   P ready
  KEYS[2]   P gaps
  KEYS[3]   P rebased
  KEYS[4]   P rebases
  KEYS[5]   P l:<lane>
  KEYS[6]   P e:<lane>
  ARGV[1]   the lane
  ARGV[2]   the position to go on from, or "" for the first one held

  Returns  { 'ok', from, to }, { 'busy', position of the current event },
           { 'empty' } (no position given and none held),
           { 'above', the first position held }, { 'below', next },
           { 'beyond', tail + 1 }, or { 'unknown' } (no state, nothing held)
]]
local READY, GAPS, REBASED, REBASES, L, E = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local lane, wanted = ARGV[1], tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)

local f = redis.call('HMGET', L, 'cp', 'next', 'pn', 'tail')
if f[1] then return { 'busy', f[1] } end
local from = tonumber(f[2] or '1')
local first
for _, p in ipairs(redis.call('HKEYS', E)) do
  local n = tonumber(p)
  if not first or n < first then first = n end
end
if not first and not f[2] and not f[3] and not f[4] then return { 'unknown' } end
local to = wanted or first
if not to then return { 'empty' } end
if first and to > first then return { 'above', tostring(first) } end
if to < from then return { 'below', tostring(from) } end
local tail = tonumber(f[4] or '0')
if (f[3] == 'l' or (not f[3] and f[4])) and to > tail + 1 then return { 'beyond', tostring(tail + 1) } end

redis.call('HSET', L, 'next', to, 'rbf', from, 'rbt', to, 'rbw', 'operator', 'rba', now)
recordSkipped(L, from, to, 'operator', now)
redis.call('HDEL', L, 'gp', 'gs')
redis.call('ZREM', GAPS, lane)
redis.call('ZADD', REBASED, now, lane)
redis.call('ZREMRANGEBYRANK', REBASED, 0, -1001)
redis.call('INCR', REBASES)
if first and redis.call('HSETNX', L, 'q', '1') == 1 then redis.call('LPUSH', READY, lane) end
return { 'ok', tostring(from), tostring(to) }
